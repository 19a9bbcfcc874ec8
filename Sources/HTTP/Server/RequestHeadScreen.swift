/// Looks at the first bytes of a connection, before libmicrohttpd reads them, for a request
/// head that libmicrohttpd 0.9.75 would mishandle.
///
/// Why: MHD tolerates empty lines before a request line (RFC 9112 section 2.2) but tests
/// "empty" as `line[0] == 0` after turning the CRLF into NULs, so a line that *starts* with a
/// NUL byte (`\0\1\2 nonsense \xff`) is skipped as if it were empty. The connection then
/// waits, silently, for a request line that never comes. A NUL is never valid anywhere in a
/// request head (RFC 9110 section 5.5 for field values; the request line is tokens and a
/// URI), so any NUL before the head's end refuses the connection with 400 at once.
///
/// Likewise a complete request line that is not three parts (`GET\r\n`): MHD closes such a
/// connection without a word, where API.md promises 400.
enum RequestHeadScreen {
    /// True when `bytes` (what arrived so far, perhaps a partial head, perhaps followed by a
    /// body) hold a NUL before the empty line that ends the request head, or a whole request
    /// line without its method, target and version.
    static func refuses(_ bytes: some Collection<UInt8>) -> Bool {
        var atLineStart = true
        var sawRequestLine = false
        var inRequestLine = false
        var requestLineSpaces = 0
        for byte in bytes {
            switch byte {
            case 0:
                return true
            case UInt8(ascii: "\n"):
                // An empty line before the request line is tolerated; after it, it ends the head
                // and what follows is a body, where NUL bytes are fine.
                if atLineStart && sawRequestLine { return false }
                if inRequestLine && requestLineSpaces < 2 { return true }
                inRequestLine = false
                atLineStart = true
            case UInt8(ascii: " "):
                if inRequestLine { requestLineSpaces += 1 }
                atLineStart = false
            case UInt8(ascii: "\r"):
                continue  // part of a line ending; does not start a line's content
            default:
                if !sawRequestLine { inRequestLine = true }
                atLineStart = false
                sawRequestLine = true
            }
        }
        return false
    }
}
