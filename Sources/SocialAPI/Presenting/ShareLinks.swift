/// What a Video object's `shareUrl` is: `{--public-url}/v/{id}` with the public web on, null
/// without it (API.md "Public web").
///
/// One value for the whole process, set once by `Application.init` before any request is
/// served and only read after, for the reason `PictureLinks` gives: videos are written from
/// rows deep inside static presenters (`VideoJSON.write`), on every list's hot path.
enum ShareLinks {
    /// `https://host/v/`, or nil when the public web is off.
    nonisolated(unsafe) private(set) static var prefix: String?

    static func configure(publicURL: String?) {
        let configured = publicURL.map { $0 + "/v/" }
        // Written only when it changes (applications made one after another in the tests).
        if configured != prefix { prefix = configured }
    }
}
