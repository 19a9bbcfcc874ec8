-- Account pre-hijacking (issue 43, API.md "Sign in with Apple, Google and Facebook"):
--
-- `identities.vouched`: whether the account's email was verified when the identity was linked.
-- A completed password reset proves the mailbox and removes every identity linked while it
-- was not (`vouched = 0`), so whoever signed up first with someone else's address (a password
-- sign-up, or a provider account given that address later) and linked their own provider
-- keeps no way in. Rows linked before this migration count as linked under the account's
-- current state: an account whose email is verified keeps them.
--
-- `used_nonces`: a provider token's `nonce` signs in once. The key is the provider and the
-- token's nonce claim; a row is kept until the token could no longer be accepted anyway
-- (its `exp` plus the leeway), then the maintenance pass removes it.
ALTER TABLE identities ADD COLUMN vouched INTEGER NOT NULL DEFAULT 0 CHECK (vouched IN (0, 1));
UPDATE identities SET vouched = (SELECT email_verified FROM users WHERE users.id = identities.user_id);

CREATE TABLE used_nonces (
    nonce_key   TEXT PRIMARY KEY,
    expires_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX used_nonces_by_expiry ON used_nonces (expires_at);
