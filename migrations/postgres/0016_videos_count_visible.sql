-- `videosCount` (users, rallies) counts the videos everyone can see (API.md "Visibility",
-- issue 27): until now a hidden video still counted, so a profile or a rally told everyone
-- that moderated content existed. From here the counters hold the rule the hooks keep
-- (SocialAPI BuiltInHooks): a video counts when it is not hidden and its owner is not banned;
-- a banned account's own count is 0 while the ban lasts. This recomputes both counters once,
-- writing only the rows whose count changes.
UPDATE users SET videos_count = (
    SELECT COUNT(*) FROM videos v WHERE v.owner_id = users.id AND v.hidden = FALSE AND users.banned_at IS NULL)
WHERE videos_count <> (
    SELECT COUNT(*) FROM videos v WHERE v.owner_id = users.id AND v.hidden = FALSE AND users.banned_at IS NULL);

UPDATE rallies SET videos_count = (
    SELECT COUNT(*) FROM videos v WHERE v.rally_id = rallies.id AND v.hidden = FALSE
        AND v.owner_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL))
WHERE videos_count <> (
    SELECT COUNT(*) FROM videos v WHERE v.rally_id = rallies.id AND v.hidden = FALSE
        AND v.owner_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL));
