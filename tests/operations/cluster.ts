import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { freePort } from '../helpers/browser.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Real `bin/qrail.js` processes on one PostgreSQL database and one Redis, as a deployment runs
 * them (docs/operations.md#running-several-nodes): a scratch database per run, `qrail migrate`
 * once, then `serve --role api|worker` nodes sharing one configuration.
 */
const BIN = new URL('../../bin/qrail.js', import.meta.url).pathname;

export interface Node {
  readonly role: 'api' | 'worker' | 'all';
  readonly pid: number;
  /** http://127.0.0.1:PORT for an api node. */
  readonly url: string;
  readonly metricsUrl: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines of its output, for a failure message. */
  tail(): string;
  /** How many lines of its output so far match `pattern` (every line is matched as it arrives). */
  count(pattern: RegExp): number;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** True when a TCP connection to host:port opens within a second. */
export function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port, timeout: 1_000 });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
    s.once('timeout', () => done(false));
  });
}

/** A fresh database on the server of `adminUrl`; returns its URL and a function that drops it. */
export async function scratchDatabase(adminUrl: string, tag: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `qrail_${tag}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Runs a one-shot command of the binary; resolves with its exit code and output. */
export function runCommand(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

/** Starts `serve --role <role>` and resolves once it serves (api and all: /readyz answers 200; worker: /metrics answers). */
export async function startNode(role: 'api' | 'worker' | 'all', env: Record<string, string>): Promise<Node> {
  const port = await freePort();
  const metricsPort = await freePort();
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'serve', '--role', role], {
    env: { ...process.env, ...env, PORT: String(port), METRICS_PORT: String(metricsPort) },
  });
  const lines: string[] = [];
  const seen: string[] = [];
  const keep = (l: string) => {
    lines.push(l);
    if (lines.length > 80) lines.shift();
    if (seen.length < 20_000) seen.push(l);
  };
  createInterface({ input: child.stdout }).on('line', keep);
  createInterface({ input: child.stderr }).on('line', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  let dead = false;
  void exited.then(() => (dead = true));
  const node: Node = {
    role,
    pid: child.pid ?? 0,
    url: `http://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    exited,
    tail: () => lines.join('\n'),
    count: (pattern) => seen.filter((l) => pattern.test(l)).length,
    async kill(signal) {
      child.kill(signal);
      await exited;
    },
  };
  const probe = role === 'worker' ? node.metricsUrl : `${node.url}/readyz`;
  await waitFor(
    async () => {
      if (dead) throw new Error(`${role} node exited before serving:\n${node.tail()}`);
      return fetch(probe).then(
        (r) => r.ok,
        () => false,
      );
    },
    { timeoutMs: 60_000, intervalMs: 100, what: `${role} node ${node.pid} serving` },
  );
  return node;
}

export interface Reply {
  readonly status: number;
  /** The parsed JSON (several response shapes), or the text when it is not JSON. */
  readonly body: any;
  readonly headers: Headers;
}

/** One JSON request; a refused or reset connection rejects (the node is gone). */
export async function call(base: string, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; form?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = opts.form;
  } else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const r = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (metrics text)
  }
  return { status: r.status, body: parsed, headers: r.headers };
}
