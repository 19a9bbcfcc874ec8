import Storage
import VideoRegistry

/// A user as the pages show them: the public fields only, never an email or a role.
struct WebUser: Sendable, Equatable {
    let username: String
    let displayName: String
    /// The key of their profile picture (`PictureLinks`), nil when none.
    let picture: String?
}

/// A video as the pages show it, with its owner, read in the list's own statement.
struct WebVideo: Sendable, Equatable {
    /// The video's fields a page shows (a list's cards leave the description out).
    struct Fields: Sendable, Equatable {
        let id: String
        let youtubeID: YouTubeID
        let title: String
        let description: String
        let rallyID: String
        let day: Int
        let likesCount: Int
        let commentsCount: Int
        let createdAt: Int64
    }

    let video: Fields
    let owner: WebUser

    // Only what the pages show is selected: a list's cards do not read the description, whose
    // text (up to 2,000 characters) would be made into a `String` per card for nothing.
    private static let ownerColumns: SQL = "o.username, o.display_name, o.picture"
    private static let joins: SQL = "JOIN users o ON o.id = v.owner_id"

    /// A card of a list: no description.
    static let selection = Selection(
        columns: "v.id, v.youtube_id, v.title, v.rally_id, v.day, v.likes_count, v.comments_count, v.created_at, \(ownerColumns)",
        joins: joins
    ) { reader in
        try read(&reader, description: false)
    }

    /// The video page's: the description, and the name of the video's rally (joined as `r`)
    /// for its link to the day. A video's rally always exists (a rally with videos cannot be
    /// deleted).
    static let withRallyName = Selection(
        columns: """
            v.id, v.youtube_id, v.title, v.rally_id, v.day, v.likes_count, v.comments_count, v.created_at, \(ownerColumns), \
            v.description, r.name
            """,
        joins: "\(joins) JOIN rallies r ON r.id = v.rally_id"
    ) { reader in
        let video = try read(&reader, description: true)
        let rallyName: String = try reader.next()
        return (video, rallyName)
    }

    private static func read(_ reader: inout RowReader, description: Bool) throws -> WebVideo {
        let id: String = try reader.next()
        guard let youtubeID = YouTubeID(parsing: try reader.next()) else {
            throw StorageError.decoding(column: "youtube_id", expected: "a YouTube id")
        }
        let title: String = try reader.next()
        let rallyID: String = try reader.next()
        let day: Int = try reader.next()
        let likes: Int = try reader.next()
        let comments: Int = try reader.next()
        let createdAt: Int64 = try reader.next()
        let owner = WebUser(username: try reader.next(), displayName: try reader.next(), picture: try reader.next())
        let text: String = description ? try reader.next() : ""
        return WebVideo(video: Fields(id: id, youtubeID: youtubeID, title: title, description: text, rallyID: rallyID, day: day,
                                      likesCount: likes, commentsCount: comments, createdAt: createdAt),
                        owner: owner)
    }
}

/// A comment as the video page shows it: read only, with its author.
struct WebComment: Sendable, Equatable {
    let id: String
    let content: String
    let createdAt: Int64
    let author: WebUser

    static let selection = Selection(
        columns: "a.id, a.content, a.created_at, fu.username, fu.display_name, fu.picture",
        joins: "JOIN users fu ON fu.id = a.from_user_id"
    ) { reader in
        WebComment(id: try reader.next(), content: try reader.next(as: String?.self) ?? "", createdAt: try reader.next(),
                   author: WebUser(username: try reader.next(), displayName: try reader.next(), picture: try reader.next()))
    }
}
