/**
 * bench:api — requests/s and p99 of an enveloped, authenticated platform route
 * (GET /v1/auth/me) against a bare Fastify route, each served by its own child
 * process and driven by the same closed-loop client. Last line: one JSON object.
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
  const rl = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const line = await new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (c) => reject(new Error(`${kind} server exited with ${c}`)));
  });
  return { child, info: JSON.parse(line) };
}

async function measure(kind: 'platform' | 'bare'): Promise<LoadResult> {
  const { child, info } = await startServer(kind);
  try {
    const path = kind === 'bare' ? '/bare' : '/v1/auth/me';
    const headers: Record<string, string> = info.token === undefined ? {} : { authorization: `Bearer ${info.token}` };
    await runLoad({ port: info.port, path, headers, connections: CONNECTIONS, seconds: 2 }); // warm-up (JIT, caches)
    return await runLoad({ port: info.port, path, headers, connections: CONNECTIONS, seconds: SECONDS });
  } finally {
    child.kill('SIGTERM');
  }
}

// Alternate the two so that drift in machine load affects both alike.
const platformRuns: LoadResult[] = [];
const bareRuns: LoadResult[] = [];
for (let i = 0; i < 2; i++) {
  bareRuns.push(await measure('bare'));
  platformRuns.push(await measure('platform'));
}
const best = (rs: LoadResult[]) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
const p = best(platformRuns);
const b = best(bareRuns);

console.log('route                         rps        p50 ms   p99 ms   errors');
for (const [name, r] of [['GET /v1/auth/me (platform)', p], ['GET /bare (bare fastify)', b]] as const) {
  console.log(`${name.padEnd(30)}${r.rps.toFixed(0).padStart(8)}${r.p50Ms.toFixed(2).padStart(10)}${r.p99Ms.toFixed(2).padStart(9)}${String(r.errors).padStart(9)}`);
}
if (p.errors > 0 || b.errors > 0) {
  console.log(`warning: ${p.errors + b.errors} requests did not answer 200 (not counted in rps); the run is not valid`);
  process.exitCode = 1;
}
console.log(JSON.stringify({ bench: 'api', rps_platform: Math.round(p.rps), p99_ms_platform: Number(p.p99Ms.toFixed(2)), rps_bare: Math.round(b.rps), ratio: Number((p.rps / b.rps).toFixed(3)) }));
