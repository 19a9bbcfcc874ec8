-- Ways into an account besides a password (API.md "Sign in with Apple, Google and Facebook;
-- imported social accounts", issue 30): one row per provider identity, `subject` being the
-- provider's stable id for the person (Apple's and Google's `sub`, Facebook's app-scoped user
-- id, Twitter's user id kept from a Parse export's `authData`).
--
-- (provider, subject) is the key: an identity signs into one account only. (user_id,
-- provider) is unique too: an account links at most one identity per provider, so
-- `DELETE /v1/users/me/identities/{provider}` names exactly one row, and the index serves
-- "which ways in has this account". The rows go with their account (ON DELETE CASCADE).
--
-- An account without a password keeps `users.password_hash = '!'` (no bcrypt hash has that
-- form, so nothing ever verifies against it), as imported accounts without a usable hash did.
CREATE TABLE identities (
    provider    TEXT NOT NULL CHECK (provider IN ('apple', 'google', 'facebook', 'twitter')),
    subject     TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (provider, subject),
    UNIQUE (user_id, provider)
) STRICT, WITHOUT ROWID;
