import http from 'node:http';

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
}

/** Closed-loop load: `connections` keep-alive clients each issuing requests back to back. */
export async function runLoad(opts: { port: number; path: string; headers?: Record<string, string>; connections: number; seconds: number }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections });
  const latencies: number[] = [];
  let errors = 0;
  let ok = 0;
  const deadline = performance.now() + opts.seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const req = http.request({ host: '127.0.0.1', port: opts.port, path: opts.path, agent, headers: opts.headers ?? {} }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) ok++;
          else errors++;
          latencies.push(performance.now() - t0);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  const start = performance.now();
  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  // Only answered 200s count as throughput: a fast error must never flatter a route.
  return { requests: ok, seconds, rps: ok / seconds, p50Ms: pct(0.5), p99Ms: pct(0.99), errors };
}
