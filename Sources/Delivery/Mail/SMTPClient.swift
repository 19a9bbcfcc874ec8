import CCurl
import CurlSupport
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
        guard CurlGlobal.initialized, let easy = curl_easy_init() else { return .retry("libcurl could not start") }
        defer { curl_easy_cleanup(easy) }
        guard Self.isPlainAddress(message.to) else { return .refused("not a deliverable address") }
        let source = UploadSource(bytes: message.rendered(boundary: MailMessage.makeBoundary()))
        let recipients = curl_slist_append(nil, "<\(message.to)>")
        defer { curl_slist_free_all(recipients) }
        let context = Unmanaged.passUnretained(source).toOpaque()
        let tls = configuration.url.lowercased().hasPrefix("smtps://") || !isLoopback ? CURLUSESSL_ALL : CURLUSESSL_TRY
        var options = CurlEasyOptions(easy)
        options.transfer(url: configuration.url, protocols: "smtp,smtps", timeoutMillis: configuration.timeoutMillis)
        options.long("CURLOPT_USE_SSL", CURLOPT_USE_SSL, Int(tls.rawValue))
        options.string("CURLOPT_MAIL_FROM", CURLOPT_MAIL_FROM, "<\(configuration.from)>")
        options.list("CURLOPT_MAIL_RCPT", CURLOPT_MAIL_RCPT, recipients)
        options.long("CURLOPT_UPLOAD", CURLOPT_UPLOAD, 1)
        options.long("CURLOPT_INFILESIZE", CURLOPT_INFILESIZE, source.bytes.count)
        options.callback("CURLOPT_READFUNCTION", CURLOPT_READFUNCTION, curlReadUpload)
        options.pointer("CURLOPT_READDATA", CURLOPT_READDATA, context)
        if let user = configuration.user { options.string("CURLOPT_USERNAME", CURLOPT_USERNAME, user) }
        if let password = configuration.password { options.string("CURLOPT_PASSWORD", CURLOPT_PASSWORD, password) }
        do {
            try options.apply()
        } catch {
            return .retry("curl_easy_setopt(\(error.option)): \(error.message)")
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
