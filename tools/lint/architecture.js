// The architecture rules of issue #18 as plain functions plus an ESLint plugin built on them, so the
// lint run (editor feedback) and the tests under tests/architecture (which also catch stale allowlist
// entries) judge with the same code. Plain JavaScript because eslint.config.js loads it without tsx.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, from this file's place rather than the caller's working directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Folders holding pure domain code: no I/O libraries, no store, no HTTP layer. */
export const DOMAIN_FOLDERS = [
  'src/circuits',
  'src/simulation',
  'src/optimization',
  'src/verification',
  'src/coupling',
  'src/auth',
  'src/media',
  'src/mail',
  'src/billing',
  'src/jobs',
  'src/execution',
  'src/devices',
  'src/agents',
  'src/webhooks',
  'src/optimize-jobs',
];

/** Edges inside domain folders: adapters implementing a domain's ports may do real I/O. */
export const ADAPTER_FOLDERS = ['src/media/adapters', 'src/execution/adapters', 'src/webhooks/adapters', 'src/mail/adapters'];

const under = (file, folder) => file === folder || file.startsWith(`${folder}/`);

/** Repository-relative POSIX path, or null when the file is outside the repository. */
export function repoPath(file) {
  const rel = path.relative(REPO_ROOT, path.resolve(file)).split(path.sep).join('/');
  return rel.startsWith('../') || path.isAbsolute(rel) ? null : rel;
}

export function isDomainFile(rel) {
  return DOMAIN_FOLDERS.some((f) => under(rel, f)) && !ADAPTER_FOLDERS.some((f) => under(rel, f));
}

export function isOutsideStore(rel) {
  return under(rel, 'src') && !under(rel, 'src/store');
}

const NODE_IO = new Set(['fs', 'fs/promises', 'net', 'child_process']);
const PACKAGES = ['fastify', 'pg', '@electric-sql/pglite', 'ioredis'];

/**
 * What a domain file may not import, named the way known-offenders.json names it: a package
 * ('pg', 'node:fs'), 'src/store', 'src/http', or a domain's own SQL folder ('src/billing/store').
 * Returns null when the import is allowed.
 */
export function forbiddenImport(rel, specifier) {
  if (!isDomainFile(rel)) return null;
  if (specifier.startsWith('.')) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), specifier));
    if (under(target, 'src/store')) return 'src/store';
    if (under(target, 'src/http')) return 'src/http';
    // A `store` folder inside a domain is SQL by another name; files within it may import each other.
    const inner = /^(src\/.+?\/store)(\/|$)/.exec(target);
    if (inner && !under(rel, inner[1])) return inner[1];
    return null;
  }
  const bare = specifier.replace(/^node:/, '');
  if (NODE_IO.has(bare)) return `node:${bare.split('/')[0]}`;
  if (bare.startsWith('@fastify/')) return 'fastify';
  for (const name of PACKAGES) if (bare === name || bare.startsWith(`${name}/`)) return name;
  return null;
}

// Statement shapes, not keywords alone, so prose such as "select a device from the list" is not SQL.
// Upper-case keywords (how this codebase writes SQL) match loosely; any other casing must look like
// a whole statement.
const SQL_SHAPES = [
  /\bSELECT\s[\s\S]*?\sFROM\s/,
  /^\s*SELECT\b/,
  /\bSELECT\s+[a-z_][\w.]*\s*\(/,
  /\bINSERT\s+INTO\s/,
  /\bUPDATE\s+\S+\s+SET\s/,
  /\bDELETE\s+FROM\s/,
  /\b(CREATE|ALTER|DROP)\s+(OR\s+REPLACE\s+)?(UNIQUE\s+)?(TABLE|INDEX|FUNCTION|PROCEDURE|VIEW|MATERIALIZED\s+VIEW|TYPE|SCHEMA|SEQUENCE|TRIGGER|EXTENSION)\b/,
  /\bWITH\s+(RECURSIVE\s+)?\w+(\s*\([^)]*\))?\s+AS\s+(NOT\s+)?(MATERIALIZED\s+)?\(/,
  /\bselect\s[^'"`]*?\sfrom\s+[a-z_][\w.]*\s*(where\b|join\b|order\s+by\b|group\s+by\b|limit\b|for\s+update\b|;|$)/i,
  /\bselect\s+[a-z_][\w.]*\s*\([^)]*\)\s*(;|$)/i,
  /\binsert\s+into\s+[a-z_][\w.]*\s*(\(|values\b|select\b)/i,
  /\bupdate\s+[a-z_][\w.]*\s+set\s+[a-z_]\w*\s*=/i,
  /\bdelete\s+from\s+[a-z_][\w.]*\s*(where\b|using\b|returning\b|;|$)/i,
  /\b(create|alter|drop)\s+(table|index|function|view|type|schema|sequence|trigger|extension)\s+(if\s+(not\s+)?exists\s+)?[a-z_][\w.]*\s*(\(|on\b|add\b|drop\b|as\b|;|$)/i,
  /\bwith\s+(recursive\s+)?[a-z_]\w*\s+as\s+(not\s+)?(materialized\s+)?\(\s*(select|insert|update|delete)\b/i,
];

/** Offset of the first SQL statement in a string's text, or -1. */
export function sqlOffset(text) {
  let best = -1;
  for (const shape of SQL_SHAPES) {
    const m = shape.exec(text);
    if (m && (best === -1 || m.index < best)) best = m.index;
  }
  return best;
}

const allowedFor = (allow, rel) => (rel && allow && Object.hasOwn(allow, rel) ? allow[rel] : null);

const domainImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Domain folders do not import I/O libraries, the store or the HTTP layer (issue #18)' },
    schema: [{ type: 'object', properties: { allow: { type: 'object' } }, additionalProperties: false }],
    messages: {
      forbidden: "{{file}} is domain code and may not import '{{specifier}}' ({{target}}): define a port in the domain and implement it under src/store or an adapters folder",
    },
  },
  create(context) {
    const rel = repoPath(context.filename);
    if (!rel || !isDomainFile(rel)) return {};
    const allowed = allowedFor(context.options[0]?.allow, rel) ?? [];
    const check = (source) => {
      if (!source || typeof source.value !== 'string') return;
      const target = forbiddenImport(rel, source.value);
      if (target && !allowed.includes(target)) {
        context.report({ node: source, messageId: 'forbidden', data: { file: rel, specifier: source.value, target } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source.type === 'Literal' ? node.source : null),
    };
  },
};

const noSqlOutsideStore = {
  meta: {
    type: 'problem',
    docs: { description: 'SQL text lives only under src/store (issue #18)' },
    schema: [{ type: 'object', properties: { allow: { type: 'array', items: { type: 'string' } } }, additionalProperties: false }],
    messages: { sql: 'SQL outside src/store: move it behind a port implemented under src/store' },
  },
  create(context) {
    const rel = repoPath(context.filename);
    if (!rel || !isOutsideStore(rel) || (context.options[0]?.allow ?? []).includes(rel)) return {};
    const check = (node, text) => {
      if (sqlOffset(text) >= 0) context.report({ node, messageId: 'sql' });
    };
    return {
      Literal: (node) => {
        if (typeof node.value === 'string') check(node, node.value);
      },
      // Interpolations become a placeholder so a statement split around ${...} still reads as one.
      TemplateLiteral: (node) => check(node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' $1 ')),
    };
  },
};

export const plugin = {
  meta: { name: 'qrail-architecture' },
  rules: { 'domain-imports': domainImports, 'no-sql-outside-store': noSqlOutsideStore },
};
