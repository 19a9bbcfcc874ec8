import PostgresSchema
import Storage

/// Pacenote's schema, embedded in the binary from `migrations/<dialect>/NNNN_name.sql`
/// so that one executable carries everything it needs. Both dialects hold the same numbered
/// changes under the same names (`SchemaTests` fails when they differ), so a database's
/// `schema_migrations` reads the same whichever it is.
///
/// SwiftPM's `embedInCode` turns each file into a byte array but offers no listing, so
/// each file is named here once; `SchemaTests` fails when this list and the folder differ.
public enum Schema {
    public static let sqlite: [Migration] = [
        migration("0001_accounts", PackageResources._001_accounts_sql),
        migration("0002_videos_and_activities", PackageResources._002_videos_and_activities_sql),
        migration("0003_feeds_and_outbox", PackageResources._003_feeds_and_outbox_sql),
        migration("0004_follower_index", PackageResources._004_follower_index_sql),
        migration("0005_search_prefix_indexes", PackageResources._005_search_prefix_indexes_sql),
        migration("0006_notifications", PackageResources._006_notifications_sql),
        migration("0007_moderation", PackageResources._007_moderation_sql),
        migration("0008_accounts", PackageResources._008_accounts_sql),
        migration("0009_hot_accounts", PackageResources._009_hot_accounts_sql),
        migration("0010_search_words", PackageResources._010_search_words_sql),
        migration("0011_following_timeline_slim", PackageResources._011_following_timeline_slim_sql),
        migration("0012_followers_by_seq", PackageResources._012_followers_by_seq_sql),
        migration("0013_followers_with_follower", PackageResources._013_followers_with_follower_sql),
        migration("0014_notifications_slim", PackageResources._014_notifications_slim_sql),
        migration("0015_notifications_read_by_prefix", PackageResources._015_notifications_read_by_prefix_sql),
        migration("0016_videos_count_visible", PackageResources._016_videos_count_visible_sql),
        migration("0017_profile_pictures", PackageResources._017_profile_pictures_sql),
        migration("0018_account_exports", PackageResources._018_account_exports_sql),
        migration("0019_identities", PackageResources._019_identities_sql),
        migration("0020_changes", PackageResources._020_changes_sql),
        migration("0021_announcements", PackageResources._021_announcements_sql),
        migration("0022_admin_stats", PackageResources._022_admin_stats_sql),
        migration("0023_identity_trust", PackageResources._023_identity_trust_sql),
    ]

    /// The same changes for PostgreSQL (`migrations/postgres`, embedded by `PostgresSchema`).
    public static let postgres: [Migration] = PostgresMigrationFiles.all.map { migration($0.name, $0.bytes) }

    /// The migrations of `dialect`.
    public static func migrations(for dialect: SQLDialect) -> [Migration] {
        switch dialect {
        case .sqlite: return sqlite
        case .postgres: return postgres
        }
    }

    private static func migration(_ name: String, _ bytes: [UInt8]) -> Migration {
        Migration(name: name, sql: String(decoding: bytes, as: UTF8.self))
    }
}
