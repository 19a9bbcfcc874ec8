/// Looks at the first bytes of a connection, before libmicrohttpd reads them, for a request
/// head that libmicrohttpd 0.9.75 would mishandle.
///
/// Why: MHD tolerates empty lines before a request line (RFC 9112 section 2.2) but tests
/// "empty" as `line[0] == 0` after turning the CRLF into NULs, so a line that *starts* with a
/// NUL byte (`\0\1\2 nonsense \xff`) is skipped as if it were empty. The connection then
/// waits, silently, for a request line that never comes. A NUL is never valid anywhere in a
/// request head (RFC 9110 section 5.5 for field values; the request line is tokens and a
/// URI), so any NUL before the head's end refuses the connection with 400 at once.
enum RequestHeadScreen {
    /// True when `bytes` (what arrived so far, perhaps a partial head, perhaps followed by a
    /// body) hold a NUL before the empty line that ends the request head.
    static func refuses(_ bytes: some Collection<UInt8>) -> Bool {
        var atLineStart = true
        var sawRequestLine = false
        for byte in bytes {
            switch byte {
            case 0:
                return true
            case UInt8(ascii: "\n"):
                // An empty line before the request line is tolerated; after it, it ends the head
                // and what follows is a body, where NUL bytes are fine.
                if atLineStart && sawRequestLine { return false }
                atLineStart = true
            case UInt8(ascii: "\r"):
                continue  // part of a line ending; does not start a line's content
            default:
                atLineStart = false
                sawRequestLine = true
            }
        }
        return false
    }
}
