import Crypto
import Foundation

/// One mail as the server writes it: a plain-text and an HTML alternative of the same words.
public struct MailMessage: Sendable, Equatable {
    public var from: String
    public var to: String
    public var subject: String
    public var text: String
    public var html: String
    /// `<…@host>`; derived from the job by the caller, so a retry carries the same one and a
    /// mail server that saw the first attempt can drop the duplicate.
    public var messageID: String
    public var dateMillis: Int64

    public init(from: String, to: String, subject: String, text: String, html: String, messageID: String, dateMillis: Int64) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.messageID = messageID
        self.dateMillis = dateMillis
    }

    /// The message in Internet Message Format (RFC 5322) with MIME (RFC 2045-2047):
    /// `multipart/alternative`, plain text first then HTML (RFC 2046: the preferred last), each
    /// UTF-8 in quoted-printable so every line stays short and 7-bit. CRLF line ends; libcurl
    /// dot-stuffs lines that start with a period while sending.
    public func rendered(boundary: String) -> [UInt8] {
        var lines: [String] = [
            "Date: \(Self.rfc5322Date(millis: dateMillis))",
            "From: \(Self.headerSafe(from))",
            "To: \(Self.headerSafe(to))",
            "Subject: \(Self.encodedWord(subject))",
            "Message-ID: \(Self.headerSafe(messageID))",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
            "This is a message in MIME format.",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--\(boundary)",
                "Content-Type: \(type); charset=UTF-8",
                "Content-Transfer-Encoding: quoted-printable",
                "",
                QuotedPrintable.encode(body),
            ]
        }
        lines += ["--\(boundary)--", ""]
        return Array(lines.joined(separator: "\r\n").utf8)
    }

    /// A header value with any CR or LF removed: addresses and ids come from the configuration
    /// and the database, and a line break would let them add headers.
    static func headerSafe(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }

    /// The subject as RFC 2047 encoded words when it is not plain ASCII: `=?UTF-8?B?…?=`, each
    /// word at most 75 characters (45 bytes of text), cut between characters, never inside one.
    static func encodedWord(_ text: String) -> String {
        let clean = headerSafe(text)
        if clean.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }) { return clean }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in clean {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        // Folded: each encoded word on its own continuation line (RFC 2047 6.2 drops the space between).
        return words.joined(separator: "\r\n ")
    }

    /// `Tue, 05 Mar 2024 10:15:30 +0000`, always in English and UTC (RFC 5322 3.3).
    static func rfc5322Date(millis: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1_000))
    }

    /// A boundary no body can contain: random, and quoted-printable output never holds `--` followed by it.
    public static func makeBoundary() -> String {
        "=_pacenote_" + ((try? Hex.encode(SecureRandom.bytes(12))) ?? String(UInt64.random(in: 0 ... .max), radix: 16))
    }
}

/// Quoted-printable (RFC 2045 6.7) for UTF-8 text: printable ASCII kept, everything else
/// `=XX`, lines broken softly before 76 characters, line ends as CRLF.
enum QuotedPrintable {
    static func encode(_ text: String) -> String {
        var output: [String] = []
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        for line in normalized.split(separator: "\n", omittingEmptySubsequences: false) {
            var current = ""
            let bytes = Array(line.utf8)
            for (index, byte) in bytes.enumerated() {
                let isLast = index == bytes.count - 1
                var piece: String
                // '=' always, trailing space or tab (would be stripped in transit), and
                // anything outside printable ASCII are escaped.
                if byte == UInt8(ascii: "=") || byte < 0x20 && byte != 0x09 || byte > 0x7E || (isLast && (byte == 0x20 || byte == 0x09)) {
                    piece = "=" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
                } else {
                    piece = String(UnicodeScalar(byte))
                }
                // A leading '.' is escaped too, so no line of ours depends on SMTP dot-stuffing.
                if current.isEmpty, byte == UInt8(ascii: ".") { piece = "=2E" }
                if current.utf8.count + piece.utf8.count > 75 {
                    output.append(current + "=")
                    current = ""
                }
                current += piece
            }
            output.append(current)
        }
        return output.joined(separator: "\r\n")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
