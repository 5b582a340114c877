import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the organizations domain. Add each new code here and to docs/errors.md. */
export const ORG_ERRORS = {
  ORG_NOT_FOUND: defineCode('ORG_NOT_FOUND', 404, 'No organization with this id has the caller as a member (the `Qrail-Org` header or the path names it).'),
  ORG_ROLE_FORBIDDEN: defineCode(
    'ORG_ROLE_FORBIDDEN',
    403,
    'The caller’s role in the organization does not allow this operation; `details.role` and `details.permission` name both (docs/organizations.md has the table).',
  ),
  ORG_HEADER_MISMATCH: defineCode('ORG_HEADER_MISMATCH', 403, 'A machine credential acts in the one organization it belongs to: the `Qrail-Org` header names another.'),
  ORG_PERSONAL: defineCode(
    'ORG_PERSONAL',
    409,
    'A personal organization has only its owner: create an organization (`POST /v1/orgs`) to share a wallet; and the person’s own account is closed or exported from the personal organization only.',
  ),
  ORG_LAST_OWNER: defineCode('ORG_LAST_OWNER', 409, 'An organization always keeps an owner: make another member owner first.'),
  ORG_MEMBER_NOT_FOUND: defineCode('ORG_MEMBER_NOT_FOUND', 404, 'The user is not a member of this organization.'),
  ORG_ALREADY_MEMBER: defineCode('ORG_ALREADY_MEMBER', 409, 'The invited address already belongs to a member of this organization.'),
  ORG_INVITATION_NOT_USABLE: defineCode('ORG_INVITATION_NOT_USABLE', 404, 'The invitation is unknown, already accepted, revoked or past its 7 days; ask for a new one.'),
  ORG_INVITATION_EMAIL_MISMATCH: defineCode(
    'ORG_INVITATION_EMAIL_MISMATCH',
    403,
    'The invitation was sent to another address, or the caller’s address is not verified yet: sign in as the invited person with a verified email.',
  ),
  ORG_OWNER_ONLY: defineCode('ORG_OWNER_ONLY', 403, 'Only an owner may make, invite or change an owner.'),
  ORG_SCOPE_BEYOND_ROLE: defineCode('ORG_SCOPE_BEYOND_ROLE', 403, 'A credential’s scopes are cut to its creator’s role: `details.allowed_scopes` lists what the role may give.'),
  ORG_MEMBER_BUDGET_EXCEEDED: defineCode(
    'ORG_MEMBER_BUDGET_EXCEEDED',
    409,
    'The amount would take the submitting member’s spend above their own limit in the organization; `details.limit` is `member_daily` or `member_monthly`, with `limit_value`, `spent`, `amount` and `user_id`.',
  ),
} as const;
