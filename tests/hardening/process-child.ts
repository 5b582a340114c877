import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';

/** Helpers for the process-* hardening tests: `bin/qrail.js` as a real child process. */
export const BIN = new URL('../../bin/qrail.js', import.meta.url).pathname;

export interface Child {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** stdout and stderr so far. */
  out(): string;
  err(): string;
  /** Resolves with the first match of `re` in stdout+stderr, or rejects when the process exits first. */
  waitFor(re: RegExp): Promise<RegExpExecArray>;
  readonly exited: Promise<number | null>;
}

/**
 * The environment a child starts from: this process's, minus everything qrail would read
 * (so a developer's DATABASE_URL or REDIS_URL does not leak into a test that sets its own).
 */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (/^(DATABASE_URL|DATA_DIR|REDIS_URL|PORT|HOST|JOBS_PORT|TRUST_PROXY|QRAIL_|LOG_LEVEL|PUBLIC_BASE_URL|BILLING_|STRIPE_)/.test(k)) continue;
    env[k] = v;
  }
  return { LOG_LEVEL: 'info', COMPUTE_THREADS: '0', ...extra };
}

export function run(args: readonly string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...baseEnv({}), ...env } });
  let out = '';
  let err = '';
  const waiters: Array<{ re: RegExp; resolve: (m: RegExpExecArray) => void; reject: (e: Error) => void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      const m = w.re.exec(out + err);
      if (m !== null) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    check();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    check();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      // Let the last output chunks arrive before anyone reads them.
      setImmediate(() => {
        check();
        for (const w of waiters.splice(0)) w.reject(new Error(`process exited (${code}) before ${w.re}; stdout: ${out}\nstderr: ${err}`));
        resolve(code);
      });
    });
  });
  return {
    child,
    pid: child.pid as number,
    out: () => out,
    err: () => err,
    exited,
    waitFor(re) {
      const m = re.exec(out + err);
      if (m !== null) return Promise.resolve(m);
      return new Promise((resolve, reject) => waiters.push({ re, resolve, reject }));
    },
  };
}

/** Starts `qrail serve` and waits for its listening line; returns the port. */
export async function serve(env: Record<string, string>, args: readonly string[] = []): Promise<Child & { port: number }> {
  const c = run(['serve', ...args], { PORT: '0', ...env });
  const m = await c.waitFor(/listening at http:\/\/[^:]+:(\d+)/);
  return Object.assign(c, { port: Number(m[1]) });
}

/** Runs a command to completion. */
export async function complete(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const c = run(args, env);
  const code = await c.exited;
  return { code, out: c.out(), err: c.err() };
}

export function request(
  port: number,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Stops a child if it still runs and waits for it. */
export async function stop(c: Child, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill(signal);
  await c.exited;
}

/**
 * Runs a command that should refuse to start: resolves with its exit, or — when it starts
 * listening after all — stops it and resolves with code 'listening', so a regression fails fast.
 */
export async function refusal(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null | 'listening'; out: string; err: string }> {
  const c = run(args, env);
  const listening = c.waitFor(/listening at http|worker role started/).then(
    () => 'listening' as const,
    () => undefined,
  );
  const first = await Promise.race([c.exited, listening]);
  if (first === 'listening') await stop(c);
  else await c.exited;
  return { code: first === 'listening' ? 'listening' : (first ?? null), out: c.out(), err: c.err() };
}
