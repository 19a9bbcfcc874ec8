/// What a request head's fields, as libmicrohttpd 0.9.75 parsed them, say about how its body
/// is framed: the Content-Length to read it by, or the answer that refuses the request.
///
/// Runs on every request (the first access-handler call), kept-alive ones included, so unlike
/// `RequestHeadScreen` (a connection's first bytes only) nothing here depends on when the bytes
/// arrived. Each refusal is a shape where a proxy in front and MHD could frame the message
/// differently, so the answer is given on the first call, which also makes MHD close the
/// connection after it (it will not read a body it did not hand over, nor a next request):
/// - whitespace between a field name and its colon (RFC 9112 section 5.1: 400). MHD keeps it in
///   the name, so `Transfer-Encoding : chunked` is an unknown field to MHD and a chunked body
///   to a proxy that trims it; a field line starting with whitespace shows up the same way
///   when it is the first one (later ones are obs-fold, which only `RequestHeadScreen` sees);
/// - no `Host` on HTTP/1.1, or more than one `Host` (RFC 9112 section 3.2: 400);
/// - several `Content-Length` values that differ (MHD would read the first), or one beside
///   `Transfer-Encoding` (RFC 9112 section 6.1 lets a server refuse it): 400;
/// - a `Transfer-Encoding` other than one field saying exactly `chunked`, the only coding MHD
///   decodes (RFC 9112 section 6.1: 501). MHD would otherwise read the body as raw bytes until
///   the connection closes, and never answer.
struct HeadFraming {
    /// The declared Content-Length, as sent (UploadState validates it); nil when none.
    let contentLength: String?
    /// The answer refusing the request, when its framing is one of the shapes above.
    let refusal: APIError?

    /// `headers` as MHD reports them (names as received, duplicates kept); `version` the
    /// request line's (`HTTP/1.1`).
    init(headers: [(String, String)], version: String) {
        var hosts = 0
        var lengths: [String] = []
        var codings: [String] = []
        var spacedName = false
        for (name, value) in headers {
            if name.utf8.contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                spacedName = true
            } else if asciiCaseInsensitiveEquals(name, "Host") {
                hosts += 1
            } else if asciiCaseInsensitiveEquals(name, "Content-Length") {
                lengths.append(value)
            } else if asciiCaseInsensitiveEquals(name, "Transfer-Encoding") {
                codings.append(value)
            }
        }
        contentLength = lengths.first
        if spacedName {
            refusal = .badRequest("A field name has whitespace before its colon, or a field line starts with whitespace.")
        } else if hosts > 1 {
            refusal = .badRequest("The request has more than one Host field.")
        } else if hosts == 0 && version != "HTTP/1.0" {
            refusal = .badRequest("An HTTP/1.1 request needs a Host field.")
        } else if lengths.count > 1 && lengths.contains(where: { $0 != lengths[0] }) {
            refusal = .badRequest("The request has Content-Length fields that differ.")
        } else if !codings.isEmpty && !lengths.isEmpty {
            refusal = .badRequest("The request has both Content-Length and Transfer-Encoding.")
        } else if !codings.isEmpty && (codings.count > 1 || !asciiCaseInsensitiveEquals(codings[0], "chunked")) {
            // 501 with the code API.md lists for a request the server cannot take as sent.
            refusal = APIError(status: 501, code: "bad_request", message: "The only transfer coding accepted is chunked.")
        } else {
            refusal = nil
        }
    }
}
