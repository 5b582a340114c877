/**
 * The one check of a machine bearer token, shared by both interfaces: a credential secret
 * (`qrj_…`) or a JWT access token (of a credential, an exchanged session or a trusted issuer).
 * Each interface words its own 401 and realm around the refusal.
 */
import { AGENT_SECRET_PREFIX, type AgentIdentity } from '../../auth/credentials.js';
import { looksLikeJwt } from '../../auth/jwt.js';
import type { App } from '../app-types.js';

export type MachineTokenCheck = { readonly ok: true; readonly agent: AgentIdentity } | { readonly ok: false; readonly reason: string; readonly description: string };

const CREDENTIAL_TEXT: Record<string, string> = {
  malformed: 'The machine credential is malformed.',
  unknown: 'The machine credential is not known.',
  expired: 'The machine credential has expired.',
  revoked: 'The machine credential was revoked.',
};

/** Whether the token has the shape of a machine credential or an access token (so it is checked as one). */
export function isMachineToken(token: string): boolean {
  return token.startsWith(AGENT_SECRET_PREFIX) || looksLikeJwt(token);
}

/** Checks a token `isMachineToken` accepted: revocation and expiry of the credential behind it apply. */
export async function checkMachineToken(app: App, token: string): Promise<MachineTokenCheck> {
  if (token.startsWith(AGENT_SECRET_PREFIX)) {
    const c = await app.services.credentials.checkSecret(token);
    if (c.state !== 'valid' || c.credential === undefined) return { ok: false, reason: c.state, description: CREDENTIAL_TEXT[c.state] ?? 'The machine credential is not valid.' };
    const cr = c.credential;
    return { ok: true, agent: { accountId: cr.accountId, scopes: cr.scopes, credentialId: cr.id, subject: `credential:${cr.id}`, via: 'credential' } };
  }
  const v = await app.services.jobsTokens.verify(token);
  return v.ok ? { ok: true, agent: v.agent } : { ok: false, reason: v.reason, description: v.description };
}
