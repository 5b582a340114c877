import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../../orgs/org-ports.js';

/** Who is acting, as the audit log records it: the person, the credential, and the request's id. */
export function actorOf(req: FastifyRequest): Actor {
  const p = req.principal;
  if (p === undefined) return { kind: 'system', id: null, requestId: req.id };
  if (p.kind === 'person') return { kind: 'person', id: p.userId, requestId: req.id };
  return { kind: 'credential', id: p.credentialId ?? p.subject, requestId: req.id };
}

/**
 * Who submits a spend, as holds, jobs and execution jobs record it (migration 1810): `user:<id>`
 * for a person's session, the credential's subject (`credential:<id>`, `session:<id>`, `jwt:…`)
 * otherwise. The ledger charges it to that member's budget.
 */
export function submitterOf(req: FastifyRequest): string | null {
  const p = req.principal;
  if (p === undefined) return null;
  return p.kind === 'person' ? `user:${p.userId}` : p.subject;
}
