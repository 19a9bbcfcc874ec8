-- Nothing changes on PostgreSQL (issue 15; the SQLite migration of the same name drops the
-- partial index of unread notifications and bounds marking read by the newest read row).
-- Here concurrent transactions take seqs from the sequence in one order and may commit them
-- in another: a notification can become visible below one the user has already marked read.
-- The bound would leave it unread for good, so marking read keeps `notifications_unread`.
SELECT 1;
