/**
 * Lints the live OpenAPI document with Redocly's recommended rules (redocly.yaml): dumps it to a
 * temporary file and runs `redocly lint` on it, offline (telemetry and the update check are off).
 * Exit code: Redocly's (non-zero on any error).
 *
 *   npm run openapi:lint
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dumpOpenapi } from './openapi-dump.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'qrail-openapi-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, await dumpOpenapi());
  const r = spawnSync(process.execPath, [cli, 'lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'stylish'], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
  });
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
