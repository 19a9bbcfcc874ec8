/// The PostgreSQL migrations (`migrations/postgres/*.sql`), embedded in the binary.
///
/// A target of their own because SwiftPM names an embedded file after its base name only
/// (`0001_accounts.sql` becomes `PackageResources._001_accounts_sql`), and the two dialects'
/// files share their names on purpose; in one target they would collide. `Schema` (its target)
/// turns these into migrations; `SchemaTests` fails when this list and the folder differ.
public enum PostgresMigrationFiles {
    public static let all: [(name: String, bytes: [UInt8])] = [
        ("0001_accounts", PackageResources._001_accounts_sql),
        ("0002_videos_and_activities", PackageResources._002_videos_and_activities_sql),
        ("0003_feeds_and_outbox", PackageResources._003_feeds_and_outbox_sql),
        ("0004_follower_index", PackageResources._004_follower_index_sql),
        ("0005_search_prefix_indexes", PackageResources._005_search_prefix_indexes_sql),
        ("0006_notifications", PackageResources._006_notifications_sql),
        ("0007_moderation", PackageResources._007_moderation_sql),
        ("0008_accounts", PackageResources._008_accounts_sql),
        ("0009_hot_accounts", PackageResources._009_hot_accounts_sql),
        ("0010_search_words", PackageResources._010_search_words_sql),
        ("0011_following_timeline_slim", PackageResources._011_following_timeline_slim_sql),
        ("0012_followers_by_seq", PackageResources._012_followers_by_seq_sql),
        ("0013_followers_with_follower", PackageResources._013_followers_with_follower_sql),
        ("0014_notifications_slim", PackageResources._014_notifications_slim_sql),
        ("0015_notifications_read_by_prefix", PackageResources._015_notifications_read_by_prefix_sql),
        ("0016_videos_count_visible", PackageResources._016_videos_count_visible_sql),
        ("0017_profile_pictures", PackageResources._017_profile_pictures_sql),
        ("0018_account_exports", PackageResources._018_account_exports_sql),
        ("0019_identities", PackageResources._019_identities_sql),
        ("0020_changes", PackageResources._020_changes_sql),
        ("0021_announcements", PackageResources._021_announcements_sql),
        ("0022_admin_stats", PackageResources._022_admin_stats_sql),
        ("0023_identity_trust", PackageResources._023_identity_trust_sql),
    ]
}
