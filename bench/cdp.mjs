// A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
// NUL-terminated JSON on file descriptors 3 and 4), so the html test and bench/html.mjs can see
// what a browser sees, console messages and every request included, with no dependency and no
// browser download. Used by test/browser/html.test.ts and bench/html.mjs.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The browser to use: $LOOPLEDGER_CHROMIUM, else the first of the usual names on PATH; null if none. */
export function findChromium(env = process.env) {
  if (env.LOOPLEDGER_CHROMIUM) return env.LOOPLEDGER_CHROMIUM;
  for (const name of CANDIDATES) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return null;
}

export class Browser {
  /** @param {string} bin */
  static async launch(bin, { timeoutMs = 60_000 } = {}) {
    const profile = mkdtempSync(join(tmpdir(), 'loopledger-chromium-'));
    const child = spawn(
      bin,
      [
        '--headless',
        '--disable-gpu',
        '--no-sandbox',
        '--no-first-run',
        '--no-default-browser-check',
        '--disable-extensions',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--hide-scrollbars',
        '--mute-audio',
        '--remote-debugging-pipe',
        `--user-data-dir=${profile}`,
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
    );
    const b = new Browser(child, profile, timeoutMs);
    await b.send('Browser.getVersion');
    return b;
  }

  constructor(child, profile, timeoutMs) {
    this.child = child;
    this.profile = profile;
    this.timeoutMs = timeoutMs;
    this.nextId = 1;
    this.pending = new Map();
    /** Every event received, in order: `{ method, params, sessionId }`. */
    this.events = [];
    this.waiters = [];
    this.stderr = '';
    child.stderr.on('data', (d) => {
      if (this.stderr.length < 20_000) this.stderr += d;
    });
    let buf = '';
    child.stdio[4].on('data', (d) => {
      buf += d.toString('utf8');
      let i;
      while ((i = buf.indexOf('\0')) >= 0) {
        const msg = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        this.dispatch(msg);
      }
    });
    child.on('exit', () => {
      for (const { reject } of this.pending.values()) reject(new Error(`browser exited: ${this.stderr.slice(-2000)}`));
      this.pending.clear();
    });
  }

  dispatch(msg) {
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (!p) return;
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
      else p.resolve(msg.result);
      return;
    }
    this.events.push(msg);
    this.waiters = this.waiters.filter((w) => {
      if (msg.method !== w.method || (w.sessionId && msg.sessionId !== w.sessionId)) return true;
      w.resolve(msg.params);
      return false;
    });
  }

  /** One protocol command; `sessionId` addresses a page attached with `flatten`. */
  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    const message = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer in ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, {
        method,
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.child.stdio[3].write(message + '\0');
    });
  }

  /** The next event named `method` (of `sessionId`, if given). */
  waitFor(method, sessionId = undefined) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${method} in ${this.timeoutMs} ms`)), this.timeoutMs);
      this.waiters.push({ method, sessionId, resolve: (p) => (clearTimeout(timer), resolve(p)) });
    });
  }

  /** A new page with console, log and network events on; returns its session id. */
  async newPage({ width = 1400, height = 1000, dark = false } = {}) {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    for (const domain of ['Page', 'Runtime', 'Log', 'Network']) await this.send(`${domain}.enable`, {}, sessionId);
    await this.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, sessionId);
    await this.send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }] }, sessionId);
    return sessionId;
  }

  /** Loads `url` and waits for its load event; the time it took, in ms. */
  async load(sessionId, url) {
    const loaded = this.waitFor('Page.loadEventFired', sessionId);
    const t0 = performance.now();
    await this.send('Page.navigate', { url }, sessionId);
    await loaded;
    return performance.now() - t0;
  }

  /** Evaluates `expression` in the page and returns its value (by value: JSON-able results). */
  async evaluate(sessionId, expression) {
    const r = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
    if (r.exceptionDetails) throw new Error(`evaluate: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  }

  /** A PNG of the viewport (or the whole page with `full`), as a Buffer. */
  async screenshot(sessionId, { full = false } = {}) {
    const r = await this.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: full }, sessionId);
    return Buffer.from(r.data, 'base64');
  }

  /** Console errors, uncaught exceptions and error log entries (CSP violations land here) of a page. */
  problems(sessionId) {
    const out = [];
    for (const e of this.events) {
      if (e.sessionId !== sessionId) continue;
      if (e.method === 'Runtime.exceptionThrown') out.push(`exception: ${e.params.exceptionDetails.exception?.description ?? e.params.exceptionDetails.text}`);
      if (e.method === 'Runtime.consoleAPICalled' && (e.params.type === 'error' || e.params.type === 'warning' || e.params.type === 'assert')) {
        out.push(`console.${e.params.type}: ${e.params.args.map((a) => a.value ?? a.description).join(' ')}`);
      }
      if (e.method === 'Log.entryAdded' && (e.params.entry.level === 'error' || e.params.entry.level === 'warning')) {
        out.push(`log ${e.params.entry.source}/${e.params.entry.level}: ${e.params.entry.text}`);
      }
    }
    return out;
  }

  /** Every URL the page asked the network stack for (the page's own navigation included). */
  requests(sessionId) {
    return this.events.filter((e) => e.sessionId === sessionId && e.method === 'Network.requestWillBeSent').map((e) => e.params.request.url);
  }

  async close() {
    try {
      await Promise.race([this.send('Browser.close'), new Promise((r) => setTimeout(r, 3000))]);
    } catch {
      // already gone
    }
    // The profile can be removed only once Chromium stopped writing to it: wait for its exit, and
    // retry the removal (a helper process may still be flushing when the main one is gone).
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
      if (this.child.exitCode === null && this.child.signalCode === null) {
        this.child.kill('SIGKILL');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
      }
    }
    try {
      rmSync(this.profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      // A leftover temporary profile is not worth failing a measure or a test for.
    }
  }
}
