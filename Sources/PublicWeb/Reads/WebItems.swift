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
    let video: Video
    let owner: WebUser

    /// `Video.columns`, then the owner joined as `o` (`joins`).
    static let columns: SQL = "\(Video.columns), o.username, o.display_name, o.picture"
    static let joins: SQL = "JOIN users o ON o.id = v.owner_id"

    static let selection = Selection(columns: columns, joins: joins) { reader in
        let video = try Video(reading: &reader)
        return WebVideo(video: video, owner: WebUser(username: try reader.next(), displayName: try reader.next(), picture: try reader.next()))
    }

    /// `selection` with the name of the video's rally (joined as `r`), for the video page: its
    /// link to the day, read in the same statement. A video's rally always exists (a rally
    /// with videos cannot be deleted).
    static let withRallyName = Selection(columns: "\(columns), r.name", joins: "\(joins) JOIN rallies r ON r.id = v.rally_id") { reader in
        let video = try selection.read(&reader)
        let name: String = try reader.next()
        return (video, name)
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
