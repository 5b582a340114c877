-- Accounts people can keep (issue #26): verified email, password reset and change, sessions
-- with their address and user agent, TOTP two-factor sign-in, closing; and the durable mail
-- outbox every account mail is sent from.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
ALTER TABLE users ADD COLUMN password_changed_at timestamptz;
-- The TOTP shared secret (base32) must be readable to check codes; the pending one awaits its
-- first code. totp_last_step refuses a code's replay within its window.
ALTER TABLE users ADD COLUMN totp_secret text;
ALTER TABLE users ADD COLUMN totp_pending_secret text;
ALTER TABLE users ADD COLUMN totp_enabled_at timestamptz;
ALTER TABLE users ADD COLUMN totp_last_step bigint;
ALTER TABLE users ADD COLUMN closed_at timestamptz;
ALTER TABLE accounts ADD COLUMN closed_at timestamptz;

ALTER TABLE sessions ADD COLUMN ip text;
ALTER TABLE sessions ADD COLUMN user_agent text;

-- Single-use, expiring links mailed to the owner; only the SHA-256 of the token is kept.
CREATE TABLE account_tokens (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id),
  purpose text NOT NULL CHECK (purpose IN ('verify_email', 'password_reset')),
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX account_tokens_user_idx ON account_tokens (user_id, purpose);

CREATE TABLE recovery_codes (
  user_id uuid NOT NULL REFERENCES users(id),
  code_hash text NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- A password accepted for an account with TOTP: the session starts only when a code completes it.
CREATE TABLE mfa_challenges (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX mfa_challenges_user_idx ON mfa_challenges (user_id);

-- Every account mail, written in the transaction that asks for it and sent by the outbox worker.
-- status: pending → sending (claimed; an attempt is under way) → sent | pending (retry) | failed.
-- A message left in `sending` by a crash is never picked up again: it may have been delivered.
CREATE TABLE mail_outbox (
  id uuid PRIMARY KEY,
  user_id uuid REFERENCES users(id),
  to_address text NOT NULL,
  template text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  transport text,
  last_error text
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX mail_outbox_created_idx ON mail_outbox (created_at, id);
