// The runs whose output must stay byte-identical across refactors and speed-ups (issues 12, 17).
// Each case is one run of the built CLI from the repository root; `golden.test.ts` compares its
// stdout, stderr and exit code with test/golden/data. A golden diff means behaviour changed:
// regenerate (`npm run golden:update`) only when the change is intended, and say so in the commit.

export interface GoldenCase {
  /** File name under test/golden/data. */
  name: string;
  args: string[];
  env?: Record<string, string>;
  /** Relative to the repository root. */
  cwd?: string;
}

/** The generated store: a seeded home folder (bench/home.mjs), small so the test stays quick. */
export const HOME = { dir: '.tmp/golden-home', sessions: 150, seed: 17, scale: 0.05 };

const env80 = { COLUMNS: '80' };
const env160 = { COLUMNS: '160' };

export const CASES: GoldenCase[] = [
  { name: 'fixtures.table-80.txt', args: ['fixtures', '--no-color'], env: env80 },
  { name: 'fixtures.table-160.txt', args: ['fixtures', '--no-color'], env: env160 },
  { name: 'fixtures.table-all.txt', args: ['fixtures', '--no-color', '--top', '0', '--explain', '--excerpts'], env: env160 },
  { name: 'config.txt', args: ['config', '--no-color', '--verbose'], env: env160 },
  { name: 'config.json', args: ['config', '--json', '--set', 'tool_batch.max_strikes=3'] },
  { name: 'fixtures.table-verbose.txt', args: ['fixtures', '--no-color', '--top', '0', '--verbose', '--sort', 'path'], env: env80 },
  { name: 'fixtures.json', args: ['fixtures', '--format', 'json'] },
  { name: 'fixtures.replay.json', args: ['fixtures', '--format', 'json', '--scope', 'replay'] },
  { name: 'fixtures.ndjson', args: ['fixtures', '--format', 'ndjson'] },
  { name: 'fixtures.markdown.md', args: ['fixtures', '--format', 'markdown'] },
  { name: 'fixtures.junit.xml', args: ['fixtures', '--format', 'junit'] },
  { name: 'fixtures.sarif.json', args: ['fixtures', '--format', 'sarif'] },
  { name: 'fixtures.github.txt', args: ['fixtures', '--format', 'github', '--fail-on', 'steer'] },
  { name: 'fixtures.html', args: ['fixtures', '--format', 'html', '--excerpts'] },
  // The records' time is the run's: SOURCE_DATE_EPOCH pins it, as reproducible builds do.
  { name: 'fixtures.otlp.jsonl', args: ['fixtures', '--format', 'otlp'], env: { SOURCE_DATE_EPOCH: '1700000000' } },
  {
    name: 'fixtures.sweep.html',
    args: ['sweep', 'fixtures', '--param', 'tool_batch.max_strikes=1:4:1', '--labels', 'fixtures/.labels.json', '--max-fpr', '0.1', '--format', 'html'],
  },
  {
    name: 'fixtures.sweep.json',
    args: ['sweep', 'fixtures', '--param', 'tool_batch.max_strikes=1:4:1', '--labels', 'fixtures/.labels.json', '--max-fpr', '0.1', '--format', 'json'],
  },
  {
    name: 'fixtures.sweep-grid.txt',
    args: ['sweep', 'fixtures', '--param', 'output.exact_block_min_repeats=3:5:1', '--param', 'thinking.similarity_strong=0.85:0.95:0.05', '--labels', 'fixtures/.labels.json', '--no-color'],
    env: env160,
  },
  { name: 'home.json', args: ['home', '--format', 'json'], cwd: HOME.dir },
  { name: 'home.table-160.txt', args: ['home', '--no-color'], cwd: HOME.dir, env: env160 },
];
