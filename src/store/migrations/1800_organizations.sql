-- Organizations (issue #39; docs/organizations.md): an organization IS an account — it owns the
-- wallet, the ledger, the jobs and the machine credentials it always owned — and people are its
-- members with a role. Every existing account becomes its owner's personal organization, so
-- nothing changes for anyone who never creates another.
ALTER TABLE accounts ADD COLUMN name text;
ALTER TABLE accounts ADD COLUMN personal boolean NOT NULL DEFAULT true;

CREATE TABLE org_members (
  account_id uuid NOT NULL REFERENCES accounts(id),
  user_id uuid NOT NULL REFERENCES users(id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'billing', 'viewer')),
  -- the member's own budget inside the organization (integer micro-USD; null = no limit)
  daily_limit_micros bigint CHECK (daily_limit_micros IS NULL OR daily_limit_micros >= 0),
  monthly_limit_micros bigint CHECK (monthly_limit_micros IS NULL OR monthly_limit_micros >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, user_id)
);
CREATE INDEX org_members_user_idx ON org_members (user_id);

INSERT INTO org_members (account_id, user_id, role, created_at)
SELECT u.account_id, u.id, 'owner', u.created_at FROM users u;

-- Single-use, 7-day invitations mailed through the outbox. Accepting needs the invitee's own
-- session with that email verified: the address is the proof, so no secret token is stored.
CREATE TABLE org_invitations (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'billing', 'viewer')),
  invited_by uuid NOT NULL REFERENCES users(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users(id),
  revoked_at timestamptz
);
CREATE INDEX org_invitations_account_idx ON org_invitations (account_id, created_at);

-- Append-only record of who did what in an organization (the application never updates or deletes).
CREATE TABLE org_audit_events (
  id bigserial PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  at timestamptz NOT NULL DEFAULT now(),
  -- 'person' (actor_id = user id) or 'credential' (actor_id = credential id)
  actor_kind text NOT NULL CHECK (actor_kind IN ('person', 'credential', 'system')),
  actor_id text,
  action text NOT NULL,
  target text,
  request_id text,
  details jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(details) = 'object')
);
CREATE INDEX org_audit_events_account_idx ON org_audit_events (account_id, id);
