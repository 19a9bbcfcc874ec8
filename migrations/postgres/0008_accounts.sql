-- Accounts people can recover: the PostgreSQL form of migrations/sqlite/0008.

-- The account's language for mails and pushes: 'en' or 'es' (API.md User(me) `locale`).
ALTER TABLE users ADD COLUMN locale TEXT NOT NULL DEFAULT 'en' CHECK (locale IN ('en', 'es'));

-- Single-use tokens mailed to the account's owner, stored only as their SHA-256 (hex); one
-- live token per account and purpose.
CREATE TABLE account_tokens (
    token_hash  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
    email_key   TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    UNIQUE (user_id, purpose)
);

CREATE INDEX account_tokens_expires_at ON account_tokens (expires_at);
