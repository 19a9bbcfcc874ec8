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
///
/// And two shapes a proxy in front may read differently from MHD (request smuggling), which
/// only the raw bytes show, since MHD has rewritten them by the time it hands us the fields:
/// - obs-fold, a line after the request line that starts with SP or HTAB (RFC 9112 section
///   5.2 lets a server refuse it). MHD splices such a line onto the previous field (onto its
///   *name*, in 0.9.75: `Transfer-Encoding:\r\n chunked` becomes a field nobody knows), where
///   a proxy may unfold it into `Transfer-Encoding: chunked` and frame the body by it.
/// - a bare CR, one not followed by LF (RFC 9112 section 2.2: invalid). MHD ends a line there,
///   so `X-A: a\rTransfer-Encoding: chunked` is two fields to MHD and one to many proxies.
///
/// What the parsed fields do show (whitespace before a colon, a missing or repeated `Host`,
/// an unknown transfer coding) is checked on every request by `HeadFraming` instead.
enum RequestHeadScreen {
    /// Why a head was refused; the log line names it.
    enum Refusal: String, Equatable {
        case nul = "a NUL byte"
        case requestLine = "a request line without method, target and version"
        case obsFold = "a field line starting with whitespace (obs-fold)"
        case bareCR = "a CR not followed by LF"
    }

    /// True when `refusal(bytes)` finds something.
    static func refuses(_ bytes: some Collection<UInt8>) -> Bool {
        refusal(bytes) != nil
    }

    /// What is wrong with `bytes` (what arrived so far, perhaps a partial head, perhaps followed
    /// by a body) before the empty line that ends the request head: a NUL, a whole request line
    /// without its method, target and version, a line after the request line that starts with
    /// whitespace, or a CR followed by anything but LF. Nil when the head (or the part of it
    /// that arrived) has none of these; a CR that is the last byte so far is given the benefit
    /// of the doubt, its LF may be on its way.
    static func refusal(_ bytes: some Collection<UInt8>) -> Refusal? {
        var atLineStart = true
        var sawRequestLine = false
        var inRequestLine = false
        var requestLineSpaces = 0
        var afterCR = false
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte != UInt8(ascii: "\n") { return .bareCR }
            }
            switch byte {
            case 0:
                return .nul
            case UInt8(ascii: "\n"):
                // An empty line before the request line is tolerated; after it, it ends the head
                // and what follows is a body, where any byte is fine.
                if atLineStart && sawRequestLine { return nil }
                if inRequestLine && requestLineSpaces < 2 { return .requestLine }
                inRequestLine = false
                atLineStart = true
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if atLineStart && sawRequestLine { return .obsFold }
                if inRequestLine && byte == UInt8(ascii: " ") { requestLineSpaces += 1 }
                atLineStart = false
            case UInt8(ascii: "\r"):
                afterCR = true  // part of a line ending if LF follows; does not start a line's content
            default:
                if !sawRequestLine { inRequestLine = true }
                atLineStart = false
                sawRequestLine = true
            }
        }
        return nil
    }
}
