-- Account pre-hijacking (PostgreSQL form of migrations/sqlite/0023): whether the account's
-- email was verified when an identity was linked (a completed reset removes the others), and
-- the provider nonces already used (kept until their token expires).
ALTER TABLE identities ADD COLUMN vouched BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE identities SET vouched = users.email_verified FROM users WHERE users.id = identities.user_id;

CREATE TABLE used_nonces (
    nonce_key   TEXT PRIMARY KEY,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX used_nonces_by_expiry ON used_nonces (expires_at);
