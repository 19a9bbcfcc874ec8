import JSON

/// Where a User object's `avatarUrl` and `avatarThumbnailUrl` point: `--public-url` then
/// `/media/avatars/<name>`, or the path alone without a public URL (API.md).
///
/// One base for the whole process, set once by `Application.init` before any request is served
/// and only read after: user objects are written from rows deep inside static presenters
/// (SocialAPI's `Presenter.writeUser`, the Parse facade's `_User`), where threading a per-application value through every caller
/// would touch every list's hot path for a value that never changes while the process runs.
/// Two applications in one process (tests) share it; only the public URL differs.
package enum PictureLinks {
    nonisolated(unsafe) package private(set) static var prefix: [UInt8] = Array(path.utf8)
    package static let path = "/media/avatars/"

    /// Sets the base, once, at start; a trailing `/` of the public URL is dropped.
    package static func configure(publicURL: String?) {
        var base = publicURL ?? ""
        while base.hasSuffix("/") { base.removeLast() }
        let configured = Array((base + path).utf8)
        // Written only when it changes: applications made one after another in one process (the
        // tests) with the same base never write it while another one's threads read it.
        if configured != prefix { prefix = configured }
    }

    /// The absolute URL (or path) of a rendition.
    package static func url(_ name: String) -> String { String(decoding: prefix, as: UTF8.self) + name }

    /// Writes both fields of a user whose picture key is `key` (nulls when nil).
    package static func write(key: UnsafeRawBufferPointer?, to writer: inout JSONWriter) {
        writer.key("avatarUrl")
        guard let key else {
            writer.null()
            writer.key("avatarThumbnailUrl")
            writer.null()
            return
        }
        writer.value(prefix, key, largeSuffix)
        writer.key("avatarThumbnailUrl")
        writer.value(prefix, key, smallSuffix)
    }

    package static func write(key: String?, to writer: inout JSONWriter) {
        guard var key else { return write(key: nil as UnsafeRawBufferPointer?, to: &writer) }
        key.withUTF8 { write(key: UnsafeRawBufferPointer($0), to: &writer) }
    }

    private static let largeSuffix = Array(PictureName.large("").utf8)
    private static let smallSuffix = Array(PictureName.small("").utf8)
}
