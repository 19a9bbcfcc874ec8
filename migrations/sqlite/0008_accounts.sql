-- Accounts people can recover (API.md "Email verification and password reset").

-- The account's language for mails and pushes: 'en' or 'es' (API.md User(me) `locale`).
ALTER TABLE users ADD COLUMN locale TEXT NOT NULL DEFAULT 'en' CHECK (locale IN ('en', 'es'));

-- Single-use tokens mailed to the account's owner. Only the SHA-256 of a token is stored
-- (hex), as for sessions, so a leaked database holds no usable link. One live token per
-- account and purpose: a new one replaces the old (the UNIQUE pair).
CREATE TABLE account_tokens (
    token_hash  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
    -- The address a verification token was made for: a token made before an email change
    -- must not verify the new address.
    email_key   TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    UNIQUE (user_id, purpose)
) STRICT, WITHOUT ROWID;

CREATE INDEX account_tokens_expires_at ON account_tokens (expires_at);
