import { Type } from 'typebox';
import { CREDENTIAL_SCOPES, SCOPE_DESCRIPTIONS, type CredentialScope } from '../../../auth/credentials.js';

/** One scope a machine credential can hold (an enum, so a wrong one is named by its path and the allowed values). */
export const CredentialScopeSchema = Type.Unsafe<CredentialScope>({
  $id: 'CredentialScope',
  type: 'string',
  enum: [...CREDENTIAL_SCOPES],
  description: `A scope of a machine credential and its access tokens: ${CREDENTIAL_SCOPES.map((s) => `\`${s}\` ${SCOPE_DESCRIPTIONS[s].charAt(0).toLowerCase()}${SCOPE_DESCRIPTIONS[s].slice(1)}`).join('; ')}.`,
});

/** A reference to it, typed. */
export const CredentialScopeRef = Type.Unsafe<CredentialScope>(Type.Ref('CredentialScope'));
