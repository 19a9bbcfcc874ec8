-- Search: words split and folded as SQLite's FTS5 tokenizer does, and the query built by the
-- database from the words (PostgreSQL form; migrations/sqlite/0010 changes nothing).
--
-- PostgreSQL's text-search parser keeps some runs of letters and punctuation as one token: a
-- username 'alice.smith' (read as a host name), 'x@y.com', '1.5'. FTS5's unicode61 splits
-- them at every character that is not a letter or a digit, so on SQLite "smith" finds
-- alice.smith, and here it found nothing. ASCII punctuation now becomes a space before the
-- parser sees the text, in documents and queries alike. Only ASCII: which other characters
-- count as punctuation would depend on the database's locale; the parser already separates
-- words at those.

CREATE FUNCTION pacenote_search_text(value TEXT) RETURNS TEXT
LANGUAGE sql STABLE AS $$
    SELECT regexp_replace(unaccent(coalesce(value, '')), '[!-/:-@\[-`{-~]+', ' ', 'g')
$$;

-- The triggers of 0002 call this function by name, so they keep working.
CREATE OR REPLACE FUNCTION pacenote_search_document(first TEXT, second TEXT) RETURNS tsvector
LANGUAGE sql STABLE AS $$
    SELECT setweight(to_tsvector('simple', pacenote_search_text(first)), 'A')
        || setweight(to_tsvector('simple', pacenote_search_text(second)), 'B')
$$;

-- The query of a search: every word whole, the last one also as a prefix when
-- `last_is_prefix`. The words come separated by single spaces (SearchQuery splits the input;
-- no word holds a space) and are bound as one value, never read as tsquery syntax: each is
-- folded like the documents and becomes a phrase of its tokens (phraseto_tsquery), as an
-- FTS5 quoted string does, and only the tsquery PostgreSQL printed for it gets the `:*`.
CREATE FUNCTION pacenote_search_query(words TEXT, last_is_prefix BOOLEAN) RETURNS tsquery
LANGUAGE plpgsql STABLE AS $$
DECLARE
    parts TEXT[] := string_to_array(words, ' ');
    total INT := coalesce(array_length(parts, 1), 0);
    result tsquery;
    term tsquery;
BEGIN
    FOR i IN 1 .. total LOOP
        term := phraseto_tsquery('simple', pacenote_search_text(parts[i]));
        IF last_is_prefix AND i = total AND numnode(term) > 0 THEN
            term := (term::text || ':*')::tsquery;
        END IF;
        result := coalesce(result && term, term);
    END LOOP;
    -- No words (the route refuses that): a query that matches nothing.
    RETURN coalesce(result, ''::tsquery);
END;
$$;

UPDATE users_search SET document = pacenote_search_document(u.username, u.display_name) FROM users u WHERE u.seq = users_search.seq;
UPDATE videos_search SET document = pacenote_search_document(v.title, v.description) FROM videos v WHERE v.seq = videos_search.seq;
