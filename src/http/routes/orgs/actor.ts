import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../../orgs/org-ports.js';

/** Who is acting, as the audit log records it: the person, the credential, and the request's id. */
export function actorOf(req: FastifyRequest): Actor {
  const p = req.principal;
  if (p === undefined) return { kind: 'system', id: null, requestId: req.id };
  if (p.kind === 'person') return { kind: 'person', id: p.userId, requestId: req.id };
  return { kind: 'credential', id: p.credentialId ?? p.subject, requestId: req.id };
}
