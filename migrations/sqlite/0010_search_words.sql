-- PostgreSQL's 0010 makes its search split words at punctuation as FTS5's unicode61
-- tokenizer already does here, and builds queries from bound words; nothing changes in
-- SQLite. The file keeps both folders numbered alike.
SELECT 1;
