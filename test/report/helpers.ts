import { DEFAULT_REPORT_OPTIONS, type ReportOptions } from '../../src/report/index.js';

export function opts(over: Partial<ReportOptions> = {}): ReportOptions {
  return { ...DEFAULT_REPORT_OPTIONS, cwd: '/work/repo', ...over };
}

/** Visible columns of each line (box drawing counts one; our SGR codes none). */
export function lineWidths(text: string): number[] {
  return text.split('\n').map((l) => [...l.replace(/\u001b\[[0-9;]*m/g, '')].length);
}
