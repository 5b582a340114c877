import { fail } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import type { App, Surface } from '../app-types.js';
import { sendError } from './envelope.js';

interface RoutePattern {
  readonly regex: RegExp;
  readonly methods: Set<string>;
  readonly segments: readonly string[];
  readonly surface: Surface;
}

const segmentsOf = (url: string) => (url.split('?')[0] ?? '').split('/').filter((s) => s !== '');

/**
 * The surface for a URL no route matched: that of the routes matching it whole (405), else of
 * the routes sharing its longest leading path (two segments at least, e.g. /v1/jobs); the
 * platform envelope when nothing is that close or the closest routes disagree.
 */
function nearestSurface(patterns: Iterable<RoutePattern>, url: string): Surface {
  const path = url.split('?')[0] ?? '/';
  const segs = segmentsOf(url);
  let best = 1;
  let found = new Set<Surface>();
  for (const p of patterns) {
    let n = 0;
    if (p.regex.test(path)) n = Number.MAX_SAFE_INTEGER;
    else while (n < segs.length && n < p.segments.length && (p.segments[n] === segs[n] || p.segments[n]!.startsWith(':'))) n++;
    if (n > best) {
      best = n;
      found = new Set([p.surface]);
    } else if (n === best && n > 1) found.add(p.surface);
  }
  return found.size === 1 ? [...found][0]! : 'platform';
}

function compile(url: string): RegExp {
  const src = url
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  // Exact: Fastify's router does not ignore trailing slashes, so `/a/` is another path than `/a`.
  return new RegExp(`^${src}$`);
}

/** Unknown paths answer 404; known paths with another method answer 405 with `Allow`. */
export function registerNotFound(app: App): void {
  const patterns = new Map<string, RoutePattern>();
  const registered: { method: string; url: string }[] = [];
  app.decorate('qrailRoutes', registered);
  app.decorate('surfaceForUrl', (url: string) => nearestSurface(patterns.values(), url));
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) registered.push({ method: m.toUpperCase(), url: route.url });
    let p = patterns.get(route.url);
    if (p === undefined) {
      p = { regex: compile(route.url), methods: new Set(), segments: segmentsOf(route.url), surface: route.config?.surface ?? 'platform' };
      patterns.set(route.url, p);
    }
    for (const m of methods) p.methods.add(m.toUpperCase());
  });

  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = new Set<string>();
    for (const p of patterns.values()) if (p.regex.test(path)) for (const m of p.methods) allowed.add(m);
    // The method is allowed on a matching pattern yet the router found nothing: not a method problem.
    if (allowed.size > 0 && !allowed.has(req.method)) {
      const allow = [...allowed].sort().join(', ');
      return sendError(req, reply, fail(HTTP_ERRORS.METHOD_NOT_ALLOWED, `${req.method} is not allowed on ${path}; use ${allow}.`, { allow: [...allowed].sort() }, { allow }));
    }
    return sendError(req, reply, fail(HTTP_ERRORS.NOT_FOUND, `No route ${req.method} ${path}.`));
  });
}
