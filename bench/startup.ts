/**
 * bench:startup — how fast the shipped entry point (bin/qrail.js, running the compiled dist/)
 * starts, each figure against a baseline taken in the same run:
 *   version   `qrail --version` against a bare `node -e 0` (medians of BENCH_STARTUP_RUNS runs,
 *             interleaved so outside load hits both alike); the target is a ratio ≤ 3.
 *   fresh     `qrail serve` on a new, empty embedded data directory until GET /readyz answers
 *             200 (the baseline schema loaded, then migrate() checks it), against
 *   warm      the same directory's second start, and against
 *   database  in this process: a new embedded database opened and migrated from the baseline
 *             (what a fresh start does) against PGlite's initdb plus every migration (what it
 *             did before the baseline).
 * The last line is the JSON of the figures (milliseconds and ratios).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../src/store/migrate.ts';
import { openEmbeddedDatabase } from '../src/store/pglite-baseline.ts';
import { openPgliteDatabase } from '../src/store/pglite-database.ts';

const BIN = new URL('../bin/qrail.js', import.meta.url).pathname;
const RUNS = Number(process.env['BENCH_STARTUP_RUNS'] ?? 7);
const READY_LIMIT_MS = 120_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function timeRun(args: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  return performance.now() - t;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });
}

/** Starts `qrail serve` on dataDir; resolves with the ms until /readyz answers 200, then stops it. */
async function timeToReady(dataDir: string): Promise<number> {
  const port = await freePort();
  const t = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`qrail serve exited ${child.exitCode}: ${stderr}`);
      if (performance.now() - t > READY_LIMIT_MS) throw new Error(`not ready after ${READY_LIMIT_MS} ms`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - t;
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function timeOpenAndMigrate(open: () => ReturnType<typeof openPgliteDatabase>): Promise<number> {
  const t = performance.now();
  const db = await open();
  await migrate(db);
  const ms = performance.now() - t;
  await db.close();
  return ms;
}

async function main(): Promise<void> {
  const bare: number[] = [];
  const version: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(timeRun(['-e', '0']));
    version.push(timeRun([BIN, '--version']));
  }
  const root = mkdtempSync(join(tmpdir(), 'qrail-bench-startup-'));
  try {
    const dir = join(root, 'data');
    const fresh = await timeToReady(dir);
    const warm = await timeToReady(dir);
    const fromBaseline = await timeOpenAndMigrate(() => openEmbeddedDatabase(join(root, 'db-baseline')));
    const initdb = await timeOpenAndMigrate(() => openPgliteDatabase(join(root, 'db-initdb')));
    const figures = {
      node_e0_ms: Math.round(median(bare)),
      version_ms: Math.round(median(version)),
      version_vs_node_e0: Number((median(version) / median(bare)).toFixed(2)),
      fresh_ready_ms: Math.round(fresh),
      warm_ready_ms: Math.round(warm),
      fresh_vs_warm: Number((fresh / warm).toFixed(2)),
      new_db_from_baseline_ms: Math.round(fromBaseline),
      new_db_initdb_and_migrations_ms: Math.round(initdb),
      baseline_vs_initdb: Number((fromBaseline / initdb).toFixed(2)),
    };
    console.log(`qrail --version ${figures.version_ms} ms vs node -e 0 ${figures.node_e0_ms} ms (×${figures.version_vs_node_e0}, median of ${RUNS})`);
    console.log(`ready: fresh ${figures.fresh_ready_ms} ms, warm ${figures.warm_ready_ms} ms`);
    console.log(`new database: from the baseline ${figures.new_db_from_baseline_ms} ms, initdb + migrations ${figures.new_db_initdb_and_migrations_ms} ms`);
    console.log(JSON.stringify(figures));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
