import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from '../../app-types.js';
import { PROJECT_ROOT } from '../../../project-root.js';

/** Where `npm run console:build` writes the console (console/vite.config.ts). */
const BUILT_CONSOLE = join(PROJECT_ROOT, 'console', 'dist');

/**
 * Everything the console loads comes from this origin: its scripts and styles are files of the
 * build, it talks only to this API, and no other site may frame it (the pages move money).
 */
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Preact and uPlot set element styles from script; no stylesheet comes from elsewhere.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>qrail console</title></head>
<body><main><h1>The console is not built</h1><p>This installation has no built console. Run <code>npm run console:build</code>
(it runs on <code>npm ci</code>) and restart the service. The API is unaffected.</p></main></body></html>`;

const wantsHtml = (accept: string | undefined) => accept !== undefined && /\btext\/html\b/.test(accept);

/**
 * The web console: static files of the Vite build under /console/, every other /console/ path
 * answered with its index.html (the console routes on the client), and / sending browsers there.
 */
export default async function consoleRoutes(app: App): Promise<void> {
  const dir = app.config.consoleDir ?? BUILT_CONSOLE;
  const indexFile = join(dir, 'index.html');
  const built = existsSync(indexFile);
  const raw = { surface: 'raw' as const };
  const hide = { hide: true };

  app.get('/', { config: raw, schema: hide }, async (req, reply) => {
    // API clients keep getting the JSON 404 they always got for the bare origin.
    if (!wantsHtml(req.headers.accept)) return reply.callNotFound();
    return reply.redirect('/console/', 302);
  });
  app.get('/console', { config: raw, schema: hide }, async (_req, reply) => reply.redirect('/console/', 301));
  // Browsers ask every page of the origin (the sandbox checkout included) for one; there is none to send.
  app.get('/favicon.ico', { config: { ...raw, rateLimit: false }, schema: hide }, async (_req, reply) => reply.code(204).header('cache-control', 'public, max-age=86400').send());

  if (!built) {
    app.log.warn({ dir }, 'console not built: /console/ explains how to build it');
    app.get('/console/*', { config: raw, schema: hide }, async (_req, reply) => reply.code(503).type('text/html; charset=utf-8').header('content-security-policy', CONSOLE_CSP).send(NOT_BUILT));
    return;
  }

  // Read once: the shell is small and every client-side route answers with it.
  const shell = readFileSync(indexFile);
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    // One route per built file, registered now; the catch-all below then serves the shell.
    wildcard: false,
    index: false,
    decorateReply: false,
    serveDotFiles: false,
    setHeaders: (res, path) => {
      res.header('content-security-policy', CONSOLE_CSP);
      res.header('x-content-type-options', 'nosniff');
      // Vite names every asset after its content hash; only the shell must be revalidated.
      res.header('cache-control', path.includes(`${join(dir, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/console/')) route.config = { ...route.config, surface: 'raw' };
  });
  const sendShell = async (_req: unknown, reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').header('content-security-policy', CONSOLE_CSP).header('x-content-type-options', 'nosniff').send(shell);
  app.get('/console/', { config: raw, schema: hide }, sendShell);
  app.get('/console/*', { config: raw, schema: hide }, sendShell);
}
