import Foundation

/// A small Parse export written by a test: one `<Class>.json` per class, each
/// `{"results": [...]}` as Parse writes them, in a temporary folder of its own.
struct ParseExport {
    /// `password123` at cost 10, the hash the shared fixture's users carry.
    static let cost10Hash = "$2b$10$GEJQL85jLoFTvKgaCbdkRexqpdEz7F/BaKg9VQuJ1LE27ONXJJV4."
    static let password = "password123"

    var users: [[String: Any]] = []
    var rallies: [[String: Any]] = []
    var videos: [[String: Any]] = []
    var activities: [[String: Any]] = []
    var installations: [[String: Any]] = []

    /// A `_User` object; `hash` nil leaves `bcryptPassword` out (an account with no password).
    static func user(_ id: String, _ username: String, hash: String? = cost10Hash) -> [String: Any] {
        var user: [String: Any] = [
            "objectId": id, "username": username, "email": "\(username.lowercased())@example.com",
            "createdAt": "2014-01-02T03:04:05.678Z", "updatedAt": "2014-01-02T03:04:05.678Z",
        ]
        if let hash { user["bcryptPassword"] = hash }
        return user
    }

    static func pointer(_ className: String, _ id: String) -> [String: Any] {
        ["__type": "Pointer", "className": className, "objectId": id]
    }

    /// Writes the files into a new folder and answers it; the caller removes it.
    func write() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("pacenote-export-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files: [(String, [[String: Any]])] = [
            ("_User", users), ("Rallye", rallies), ("Video", videos), ("Activity", activities), ("_Installation", installations),
        ]
        for (name, objects) in files {
            let data = try JSONSerialization.data(withJSONObject: ["results": objects])
            try data.write(to: folder.appendingPathComponent("\(name).json"))
        }
        return folder
    }
}
