-- Search: FTS5 prefix indexes for 2- and 3-character prefixes.
--
-- Without them, FTS5 (3.40) answers a prefix query by merging the doclists of every term the
-- prefix expands to before it returns a row: `at*` on the large benchmark (100,000 videos)
-- read the whole index entry of "at" and its neighbours, 11-23 ms, whatever the page size.
-- With a prefix index a 2- or 3-character prefix is one doclist that FTS5 reads lazily, in
-- rowid order, like a whole word (0.04 ms for `at*`). Shorter prefixes are not searched as
-- prefixes at all (SearchQuery.minimumPrefixLength); longer ones expand to few terms.
--
-- FTS5 options cannot be altered, so both tables are made again, with the same columns and
-- tokenizer, and rebuilt from their content tables (users, videos); the triggers of 0002 keep
-- maintaining them by name. Rebuilding the large benchmark's indexes takes a few seconds.

DROP TABLE users_search;
CREATE VIRTUAL TABLE users_search USING fts5 (
    username, display_name,
    content = 'users', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);
INSERT INTO users_search (users_search) VALUES ('rebuild');

DROP TABLE videos_search;
CREATE VIRTUAL TABLE videos_search USING fts5 (
    title, description,
    content = 'videos', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);
INSERT INTO videos_search (videos_search) VALUES ('rebuild');
