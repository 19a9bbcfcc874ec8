-- Personal data exports (API.md "Personal data", issue 30).

-- When each account last started an export: at most one a day, in the database, so the
-- limit holds across restarts and for every server on one database. Counted when an export
-- starts (`pacenote user export` neither checks nor counts it). Goes with the account.
CREATE TABLE account_exports (
    user_id         TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    last_export_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- When a session last authenticated a request, which an export lists beside its creation.
-- Written on the session look-up at most once a day per session (Accounts
-- `sessionTouchMillis`), so it is exact to a day and costs reads nothing. Sessions made before
-- this migration start from their creation: nothing older said when they were used.
ALTER TABLE sessions ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET last_used_at = created_at;
