import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { App } from '../../src/http/app-types.js';

/**
 * The live OpenAPI document as a contract to check answers against: which operation a request
 * hit, whether the status is one it declares, and whether the body and headers match the
 * declared response (Ajv, JSON Schema 2020-12, strict, formats checked).
 */

type Json = Record<string, unknown>;
export type OpenApiDocument = {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; headers?: Record<string, Json>; securitySchemes?: Record<string, Json> };
  tags?: { name: string }[];
} & Json;

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;

export async function openapiDocument(app: App): Promise<OpenApiDocument> {
  const r = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (r.statusCode !== 200) throw new Error(`GET /openapi.json answered ${r.statusCode}`);
  return r.json<OpenApiDocument>();
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export function operations(doc: OpenApiDocument): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => HTTP_METHODS.includes(m))
      .map(([method, op]) => ({ method, path, op })),
  );
}

/** `#/components/schemas/X` → `#/$defs/X`, so that a response schema compiles as one document with the components. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '#/$defs/') : rebase(v)]));
}

export class ResponseChecker {
  private readonly ajv = addFormats(new Ajv2020({ strict: true, allErrors: true, validateFormats: true }));
  private readonly defs: Json;
  private readonly compiled = new Map<unknown, ValidateFunction>();
  private readonly routes: { method: string; path: string; regex: RegExp; op: Json }[];

  constructor(readonly doc: OpenApiDocument) {
    // OpenAPI's annotation keyword inside schemas.
    this.ajv.addKeyword('example');
    this.defs = rebase(doc.components.schemas) as Json;
    this.routes = operations(doc).map((o) => ({
      ...o,
      regex: new RegExp(
        `^${o.path
          .split('/')
          .map((seg) => (/^\{[^}]+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
          .join('/')}$`,
      ),
    }));
  }

  /** The operation a request hits (literal paths win over templated ones, as in the router). */
  operation(method: string, url: string): { path: string; op: Json } | undefined {
    const path = url.split('?')[0] ?? '/';
    const hits = this.routes.filter((r) => r.method === method.toLowerCase() && r.regex.test(path));
    hits.sort((a, b) => (a.path.includes('{') ? 1 : 0) - (b.path.includes('{') ? 1 : 0));
    return hits[0];
  }

  validator(schema: Json): ValidateFunction {
    let v = this.compiled.get(schema);
    if (v === undefined) {
      v = this.ajv.compile({ $defs: this.defs, ...(rebase(schema) as Json) });
      this.compiled.set(schema, v);
    }
    return v;
  }

  /** Problems of a request's JSON body against the operation's request schema; [] when it conforms (or it declares none). */
  checkRequest(method: string, url: string, body: string): string[] {
    const where = `${method} ${url.split('?')[0]} request`;
    const hit = this.operation(method, url);
    if (hit === undefined) return [`${where}: no operation in the document`];
    const schema = ((hit.op['requestBody'] as Json | undefined)?.['content'] as Record<string, { schema?: Json }> | undefined)?.['application/json']?.schema;
    if (schema === undefined || body === '') return [];
    const v = this.validator(schema);
    if (v(JSON.parse(body))) return [];
    return [`${where}: ${(v.errors ?? []).length} violation(s)`, ...(v.errors ?? []).slice(0, 8).map((e) => `${where}: ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)];
  }

  /** Problems of one real answer against the document; [] when it conforms. */
  check(method: string, url: string, status: number, headers: Record<string, unknown>, body: string): string[] {
    const where = `${method} ${url.split('?')[0]} → ${status}`;
    const hit = this.operation(method, url);
    if (hit === undefined) return [`${where}: no operation in the document`];
    const responses = (hit.op['responses'] ?? {}) as Record<string, Json>;
    const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses['default'];
    if (declared === undefined) return [`${where}: status not declared (declared: ${Object.keys(responses).join(', ')})`];
    const problems: string[] = [];
    for (const [name, h] of Object.entries((declared['headers'] ?? {}) as Record<string, Json>)) {
      const header = (typeof h['$ref'] === 'string' ? this.doc.components.headers?.[String(h['$ref']).split('/').pop() ?? ''] : h) ?? {};
      if (header['required'] === true && headers[name.toLowerCase()] === undefined) problems.push(`${where}: required header ${name} missing`);
    }
    const content = declared['content'] as Record<string, { schema?: Json }> | undefined;
    const ct = headers['content-type'];
    const type = (typeof ct === 'string' ? ct : '').split(';')[0]?.trim() ?? '';
    if (content === undefined) {
      if (body !== '') problems.push(`${where}: a body (${type}) where the document declares none`);
      return problems;
    }
    const media = content[type];
    if (media === undefined) return [...problems, `${where}: content type ${type || '(none)'} not declared (declared: ${Object.keys(content).join(', ')})`];
    if (type !== 'application/json' || media.schema === undefined) return problems;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [...problems, `${where}: not JSON: ${body.slice(0, 100)}`];
    }
    const v = this.validator(media.schema);
    if (!v(value)) {
      for (const e of (v.errors ?? []).slice(0, 8)) problems.push(`${where}: ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    }
    return problems;
  }
}

/**
 * Object schemas of responses whose members are not all listed: no `additionalProperties: false`
 * and no schema for the other members (a typed map). Refs are followed once each.
 */
export function openObjects(doc: OpenApiDocument): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (s: unknown, at: string): void => {
    if (s === null || typeof s !== 'object') return;
    if (Array.isArray(s)) return s.forEach((x, i) => visit(x, `${at}/${i}`));
    const n = s as Json;
    if (typeof n['$ref'] === 'string') {
      const name = String(n['$ref']).split('/').pop() ?? '';
      if (seen.has(name)) return;
      seen.add(name);
      return visit(doc.components.schemas[name], `#/components/schemas/${name}`);
    }
    const types = Array.isArray(n['type']) ? n['type'] : [n['type']];
    const objectish = types.includes('object') || n['properties'] !== undefined;
    const ap = n['additionalProperties'];
    if (objectish && ap !== false && (ap === undefined || ap === true || (typeof ap === 'object' && Object.keys(ap as Json).length === 0))) out.push(at);
    for (const k of ['items', 'additionalProperties', 'not']) if (typeof n[k] === 'object') visit(n[k], `${at}/${k}`);
    for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(n[k])) visit(n[k], `${at}/${k}`);
    for (const [p, v] of Object.entries((n['properties'] ?? {}) as Json)) visit(v, `${at}/${p}`);
  };
  for (const { method, path, op } of operations(doc)) {
    for (const [status, r] of Object.entries((op['responses'] ?? {}) as Record<string, Json>)) {
      for (const [type, media] of Object.entries((r['content'] ?? {}) as Record<string, Json>)) visit(media['schema'], `${method.toUpperCase()} ${path} ${status} ${type}`);
    }
  }
  return out;
}
