-- SQLite's 0005 rebuilds its FTS5 tables with prefix indexes for 2 and 3 characters. The
-- PostgreSQL search (0002: tsvector columns with a GIN index) matches prefixes (`:*`) from
-- that same index, so nothing changes here; the file keeps both folders numbered alike.
SELECT 1;
