-- What GET /v1/admin/stats reads (PostgreSQL form of migrations/sqlite/0022, which says why).
CREATE INDEX users_created ON users (created_at);
CREATE INDEX videos_created ON videos (created_at);
CREATE INDEX activities_type_created ON activities (type, created_at);

CREATE TABLE active_days (
    day      BIGINT NOT NULL,
    user_id  TEXT NOT NULL,
    PRIMARY KEY (day, user_id)
);
