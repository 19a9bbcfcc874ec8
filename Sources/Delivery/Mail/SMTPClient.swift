import CCurl
import CShims.Curl
import Foundation

/// How one SMTP send ended, in the outbox's terms.
public enum SMTPOutcome: Sendable, Equatable {
    case sent
    /// Worth another try: the server is down or slow, said 4xx, or TLS or login failed (an
    /// operator can fix the settings; the mail waits for it).
    case retry(String)
    /// The server refused the message or the recipient for good (5xx after connecting).
    case refused(String)
}

/// Sends mail over SMTP with libcurl's easy interface, one connection per message (mail here
/// is a few messages per user per hour, not a stream).
///
/// TLS: `smtps://` is TLS from the first byte. `smtp://` must upgrade with STARTTLS
/// (`CURLUSESSL_ALL`: a server that does not offer it fails the send, which is retried, so a
/// man in the middle who strips STARTTLS gets nothing) — except towards a loopback address,
/// where the mail never crosses a network and a local relay or a test stand-in without TLS is
/// common; there STARTTLS is used when offered (`CURLUSESSL_TRY`).
public struct SMTPClient: Sendable {
    public let configuration: SMTPConfiguration
    static let initialized: Bool = pn_curl_global_init() == CURLE_OK

    public init(configuration: SMTPConfiguration) throws {
        let lower = configuration.url.lowercased()
        guard lower.hasPrefix("smtp://") || lower.hasPrefix("smtps://"), URLComponents(string: configuration.url)?.host?.isEmpty == false else {
            throw MailConfigurationError("--smtp-url must be smtp://host:port or smtps://host:port")
        }
        guard Self.isPlainAddress(configuration.from) else {
            throw MailConfigurationError("--mail-from must be an address such as pacenote@example.com")
        }
        self.configuration = configuration
    }

    /// Whether the URL's host is a loopback address (see the type's note on TLS).
    var isLoopback: Bool {
        guard let host = URLComponents(string: configuration.url)?.host?.lowercased() else { return false }
        return host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }

    /// Sends `message` to `message.to`. Never throws; blocks at most `timeoutMillis`.
    public func send(_ message: MailMessage) -> SMTPOutcome {
        guard Self.initialized, let easy = curl_easy_init() else { return .retry("libcurl could not start") }
        defer { curl_easy_cleanup(easy) }
        guard Self.isPlainAddress(message.to) else { return .refused("not a deliverable address") }
        let source = UploadSource(bytes: message.rendered(boundary: MailMessage.makeBoundary()))
        let recipients = curl_slist_append(nil, "<\(message.to)>")
        defer { curl_slist_free_all(recipients) }
        let context = Unmanaged.passUnretained(source).toOpaque()
        let tls = configuration.url.lowercased().hasPrefix("smtps://") || !isLoopback ? CURLUSESSL_ALL : CURLUSESSL_TRY
        var steps: [(String, () -> CURLcode)] = [
            ("CURLOPT_URL", { pn_curl_easy_setopt_string(easy, CURLOPT_URL, configuration.url) }),
            ("CURLOPT_PROTOCOLS_STR", { pn_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "smtp,smtps") }),
            ("CURLOPT_NOSIGNAL", { pn_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1) }),
            ("CURLOPT_TIMEOUT_MS", { pn_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, configuration.timeoutMillis) }),
            ("CURLOPT_USE_SSL", { pn_curl_easy_setopt_long(easy, CURLOPT_USE_SSL, Int(tls.rawValue)) }),
            ("CURLOPT_MAIL_FROM", { pn_curl_easy_setopt_string(easy, CURLOPT_MAIL_FROM, "<\(configuration.from)>") }),
            ("CURLOPT_MAIL_RCPT", { pn_curl_easy_setopt_slist(easy, CURLOPT_MAIL_RCPT, recipients) }),
            ("CURLOPT_UPLOAD", { pn_curl_easy_setopt_long(easy, CURLOPT_UPLOAD, 1) }),
            ("CURLOPT_INFILESIZE", { pn_curl_easy_setopt_long(easy, CURLOPT_INFILESIZE, source.bytes.count) }),
            ("CURLOPT_READFUNCTION", { pn_curl_easy_setopt_callback(easy, CURLOPT_READFUNCTION, curlReadUpload) }),
            ("CURLOPT_READDATA", { pn_curl_easy_setopt_pointer(easy, CURLOPT_READDATA, context) }),
        ]
        if let user = configuration.user {
            steps.append(("CURLOPT_USERNAME", { pn_curl_easy_setopt_string(easy, CURLOPT_USERNAME, user) }))
        }
        if let password = configuration.password {
            steps.append(("CURLOPT_PASSWORD", { pn_curl_easy_setopt_string(easy, CURLOPT_PASSWORD, password) }))
        }
        for (option, step) in steps {
            let code = step()
            if code != CURLE_OK { return .retry("curl_easy_setopt(\(option)): \(String(cString: curl_easy_strerror(code)))") }
        }
        let code = curl_easy_perform(easy)
        var reply = 0
        _ = pn_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &reply)
        if code == CURLE_OK { return .sent }
        let reason = "\(String(cString: curl_easy_strerror(code))) (SMTP \(reply))"
        // A 5xx reply to MAIL, RCPT or DATA is the server's final word on this message;
        // anything else (no connection, 4xx, TLS, login) may pass.
        if (500...599).contains(reply), code != CURLE_LOGIN_DENIED, code != CURLE_USE_SSL_FAILED { return .refused(reason) }
        return .retry(reason)
    }

    /// One address, as `Validation` accepts them: no spaces, angle brackets or line breaks,
    /// which would change the SMTP command they go into.
    static func isPlainAddress(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && address.utf8.count <= 254
            && !address.unicodeScalars.contains { $0.value <= 0x20 || $0 == "<" || $0 == ">" || $0.value == 0x7F }
    }
}

/// The message bytes libcurl reads while sending; owned by `send`, which outlives the transfer.
final class UploadSource {
    let bytes: [UInt8]
    var offset = 0
    init(bytes: [UInt8]) { self.bytes = bytes }
}

/// `CURLOPT_READFUNCTION`: copies the next part of the message into libcurl's buffer; 0 ends it.
func curlReadUpload(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let context else { return 0 }
    let source = Unmanaged<UploadSource>.fromOpaque(context).takeUnretainedValue()
    let length = min(size * count, source.bytes.count - source.offset)
    guard length > 0 else { return 0 }
    source.bytes.withUnsafeBytes { bytes in
        // Unsafe pointers: libcurl's buffer holds size * count bytes; we copy at most that many
        // from inside `bytes` (non-empty here, so it has a base address).
        guard let base = bytes.baseAddress else { return }
        UnsafeMutableRawPointer(buffer).copyMemory(from: base + source.offset, byteCount: length)
    }
    source.offset += length
    return length
}
