-- What GET /v1/admin/stats reads (PostgreSQL form of migrations/sqlite/0022, which says why).
CREATE INDEX users_created_day ON users ((created_at / 86400000));
CREATE INDEX videos_created_day ON videos ((created_at / 86400000));
CREATE INDEX activities_type_day ON activities (type, (created_at / 86400000));

CREATE TABLE active_days (
    day      BIGINT NOT NULL,
    user_id  TEXT NOT NULL,
    PRIMARY KEY (day, user_id)
);
