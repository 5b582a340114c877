/**
 * Run by input-bounds-memory.test.ts in a child process with a small heap: sends each circuit
 * of QRAIL_IB_CIRCUITS (a JSON array of circuit JSON texts) to every entry point and prints the
 * answers as one JSON line. A regression that allocates by a declared size aborts this process
 * (heap out of memory) instead of the test runner.
 */
import { circuitDepth } from '../../src/circuits/depth.js';
import { circuit, measure } from '../../src/circuits/ir.js';
import { buildTestApp } from '../helpers/app.js';
import { callers, ENTRY_POINTS, send } from './input-bounds-entry-points.js';

if (process.env['QRAIL_IB_MODE'] === 'depth') {
  // Not an IR the parser lets through; depth must still not allocate by its sizes or indices.
  const G = 1_000_000_000;
  process.stdout.write(`${JSON.stringify(circuitDepth(circuit(G, G, [measure(G - 1, G - 1), measure(G - 1, 0)])))}\n`);
  process.exit(0);
}

const circuits = JSON.parse(process.env['QRAIL_IB_CIRCUITS'] ?? '[]') as string[];
const app = await buildTestApp();
try {
  const who = await callers(app);
  const results: { circuit: number; entry: string; status: number; body: string }[] = [];
  for (const [i, c] of circuits.entries()) {
    for (const ep of ENTRY_POINTS) {
      const r = await send(app, who, ep, c);
      results.push({ circuit: i, entry: ep.name, status: r.statusCode, body: r.body });
    }
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
  await app.close();
}
