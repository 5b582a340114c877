/**
 * Who submitted a job, a run or a hold (issue #39 item 6), as stored (`user:<id>`,
 * `credential:<id>`, `session:<id>`, `jwt:<iss>#<sub>`; migration 1810) and as shown:
 * a person, a machine credential, or an access token that is neither (a session's exchanged
 * token or a trusted issuer's, whose subject is the id).
 */
export interface SubmittedBy {
  readonly kind: 'user' | 'credential' | 'token';
  readonly id: string;
}

export function submittedByView(stored: string | null | undefined): SubmittedBy | null {
  if (stored === null || stored === undefined || stored === '') return null;
  if (stored.startsWith('user:')) return { kind: 'user', id: stored.slice('user:'.length) };
  if (stored.startsWith('credential:')) return { kind: 'credential', id: stored.slice('credential:'.length) };
  return { kind: 'token', id: stored };
}
