-- Ways into an account besides a password (PostgreSQL form of migrations/sqlite/0019).
--
-- (provider, subject) is the key: an identity signs into one account only. (user_id,
-- provider) is unique too: an account links at most one identity per provider, and the index
-- serves "which ways in has this account". The rows go with their account.
-- An account without a password keeps `users.password_hash = '!'`.
CREATE TABLE identities (
    provider    TEXT NOT NULL CHECK (provider IN ('apple', 'google', 'facebook', 'twitter')),
    subject     TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (provider, subject),
    UNIQUE (user_id, provider)
);
