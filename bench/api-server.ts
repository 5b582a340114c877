/**
 * Child process of bench/api.ts: serves either the real qrail app (platform route with
 * session auth and envelope) or a bare Fastify route, and prints its port.
 */
import Fastify from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';

const kind = process.argv[2];
if (kind === 'bare') {
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ user: { user_id: '00000000-0000-0000-0000-000000000000', email: 'bench@example.com' } }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
} else {
  const config = loadConfig({ DATA_DIR: 'memory://', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000' });
  const app = await buildApp({ config, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const email = 'bench@example.com';
  const password = 'bench password 1';
  await app.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password } });
  const login = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password } });
  process.stdout.write(`${JSON.stringify({ port, token: login.json().data.token })}\n`);
}
