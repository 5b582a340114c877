/**
 * bench:api — requests/s and p99 of an enveloped, authenticated platform route
 * (GET /v1/auth/me) against a bare Fastify route, each served by its own child
 * process and driven by the same closed-loop client, in alternating windows.
 * rps and p99 are those of the median window; the ratio is the median of the
 * paired windows' ratios. Last line: one JSON object.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadResult } from './lib/load.js';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 16);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 8);

async function startServer(kind: 'platform' | 'bare'): Promise<{ child: ChildProcess; info: { port: number; token?: string } }> {
  const server = fileURLToPath(new URL('./api-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', server, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = createInterface({ input: child.stdout });
  const line = await new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (c) => reject(new Error(`${kind} server exited with ${c}`)));
  });
  return { child, info: JSON.parse(line) };
}

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 6);

// Both servers stay up; short load windows alternate between them, and each platform window is
// paired with the bare window just before it. The ratio is the median of the pairs, so a burst
// of load from elsewhere on the machine spoils one pair, not the result.
const servers = { bare: await startServer('bare'), platform: await startServer('platform') };
const target = (kind: 'platform' | 'bare') => {
  const { info } = servers[kind];
  return {
    port: info.port,
    path: kind === 'bare' ? '/bare' : '/v1/auth/me',
    headers: info.token === undefined ? {} : { authorization: `Bearer ${info.token}` },
    connections: CONNECTIONS,
  };
};
const platformRuns: LoadResult[] = [];
const bareRuns: LoadResult[] = [];
try {
  for (const kind of ['bare', 'platform'] as const) await runLoad({ ...target(kind), seconds: 2 }); // warm-up (JIT, caches)
  for (let i = 0; i < ROUNDS; i++) {
    bareRuns.push(await runLoad({ ...target('bare'), seconds: SECONDS / 2 }));
    platformRuns.push(await runLoad({ ...target('platform'), seconds: SECONDS / 2 }));
  }
} finally {
  for (const { child } of Object.values(servers)) child.kill('SIGTERM');
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const ratios = platformRuns.map((r, i) => r.rps / bareRuns[i]!.rps);
const medianOf = (rs: LoadResult[]): LoadResult => {
  const sorted = [...rs].sort((a, b) => a.rps - b.rps);
  return sorted[sorted.length >> 1]!;
};
const p = { ...medianOf(platformRuns), errors: platformRuns.reduce((a, r) => a + r.errors, 0) };
const b = { ...medianOf(bareRuns), errors: bareRuns.reduce((a, r) => a + r.errors, 0) };
const ratio = median(ratios);
console.log(`pairs (platform/bare rps): ${ratios.map((r) => r.toFixed(3)).join(' ')}`);

console.log('route                         rps        p50 ms   p99 ms   errors');
for (const [name, r] of [
  ['GET /v1/auth/me (platform)', p],
  ['GET /bare (bare fastify)', b],
] as const) {
  console.log(`${name.padEnd(30)}${r.rps.toFixed(0).padStart(8)}${r.p50Ms.toFixed(2).padStart(10)}${r.p99Ms.toFixed(2).padStart(9)}${String(r.errors).padStart(9)}`);
}
if (p.errors > 0 || b.errors > 0) {
  console.log(`warning: ${p.errors + b.errors} requests did not answer 200 (not counted in rps); the run is not valid`);
  process.exitCode = 1;
}
console.log(JSON.stringify({ bench: 'api', rps_platform: Math.round(p.rps), p99_ms_platform: Number(p.p99Ms.toFixed(2)), rps_bare: Math.round(b.rps), ratio: Number(ratio.toFixed(3)) }));
