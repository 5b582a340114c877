/**
 * Writes the live OpenAPI document — what GET /openapi.json and /docs/json serve — to FILE
 * (stdout without one). The app is built on an in-memory database with this environment's
 * other settings (PUBLIC_BASE_URL becomes `servers`); nothing listens and nothing is kept.
 *
 *   npm run openapi:dump -- /tmp/openapi.json
 */
import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';

export async function dumpOpenapi(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...rest } = env;
  const config = loadConfig({ ...rest, DATA_DIR: 'memory://', LOG_LEVEL: 'silent' });
  const app = await buildApp({ config, logger: false });
  try {
    await app.ready();
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await dumpOpenapi();
  const file = process.argv[2];
  if (file === undefined) process.stdout.write(text);
  else writeFileSync(file, text);
}
