import Foundation
import XCTest
@testable import Delivery

final class MailMessageTests: XCTestCase {
    private let message = MailMessage(
        from: "pacenote@example.com", to: "ana@example.com", subject: "Restablece tu contraseña",
        text: "Hola, ana:\n.línea con punto\n" + String(repeating: "x", count: 200), html: "<p a=\"b\">ñ</p>",
        messageID: "<reset.1.abc@example.com>", dateMillis: 1_396_692_930_123)

    func testHeadersAndMultipartAlternative() {
        let text = String(decoding: message.rendered(boundary: "=_b"), as: UTF8.self)
        XCTAssertTrue(text.contains("Date: Sat, 05 Apr 2014 10:15:30 +0000\r\n"), text)
        XCTAssertTrue(text.contains("Message-ID: <reset.1.abc@example.com>\r\n"))
        XCTAssertTrue(text.contains("Content-Type: multipart/alternative; boundary=\"=_b\"\r\n"))
        XCTAssertTrue(text.contains("Subject: =?UTF-8?B?"), "RFC 2047 for a non-ASCII subject")
        XCTAssertTrue(text.range(of: "text/plain")!.lowerBound < text.range(of: "text/html")!.lowerBound, "plain first, HTML preferred last")
        XCTAssertTrue(text.hasSuffix("--=_b--\r\n"))
        for line in text.components(separatedBy: "\r\n") {
            XCTAssertLessThanOrEqual(line.utf8.count, 78, "line too long: \(line)")
            XCTAssertTrue(line.utf8.allSatisfy { $0 < 0x80 }, "7-bit only: \(line)")
            XCTAssertFalse(line.hasPrefix("."), "no line relies on dot-stuffing: \(line)")
        }
    }

    func testQuotedPrintableRoundTripsUTF8() {
        let encoded = QuotedPrintable.encode("ñ = 1 \nfin")
        XCTAssertEqual(encoded, "=C3=B1 =3D 1=20\r\nfin")
    }

    func testEncodedWordsSplitBetweenCharacters() {
        let subject = String(repeating: "ñ", count: 60)
        let encoded = MailMessage.encodedWord(subject)
        let words = encoded.components(separatedBy: "\r\n ")
        XCTAssertGreaterThan(words.count, 1)
        var decoded = ""
        for word in words {
            XCTAssertLessThanOrEqual(word.count, 75)
            let base64 = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
            decoded += String(decoding: Data(base64Encoded: String(base64)) ?? Data(), as: UTF8.self)
        }
        XCTAssertEqual(decoded, subject, "each word decodes on its own: no character was cut")
        XCTAssertEqual(MailMessage.encodedWord("Plain\r\nBcc: x"), "PlainBcc: x", "no header injection")
    }

    func testAddressesThatWouldChangeTheSMTPCommandAreRefused() {
        XCTAssertTrue(SMTPClient.isPlainAddress("a.b@example.com"))
        for bad in ["a b@example.com", "a@b>\r\nRCPT TO:<x@y", "<a@b>", "ab", "@b", "a@"] {
            XCTAssertFalse(SMTPClient.isPlainAddress(bad), bad)
        }
    }
}
