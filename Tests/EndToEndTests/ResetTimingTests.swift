import Foundation
import TestSupport
import XCTest

/// A reset for an address without an account answers in the same time as one for an address
/// with an account: both queue one job in one write, and the mail worker looks the address up
/// later. (The probe measured 1.4 ms against 0.7 ms, ranges apart, when only the known path
/// wrote.) A paired measurement: alternated requests, so load on the machine hits both series
/// alike, compared by their medians with room for this machine's noise.
final class ResetTimingTests: XCTestCase {
    func testAResetTakesAsLongWhetherOrNotTheAddressHasAnAccount() throws {
        let mail = try MailServer(smtp: try SMTPStandIn(), extra: ["--limit-mails", "off", "--limit-mails-per-ip", "off"])
        let account = try mail.client.signup()
        func millis(_ email: String) throws -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            assertSuccess(try mail.client.request("POST", "/v1/password-resets", json: ["email": email]), 204)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        for _ in 0..<5 { _ = try millis(account.email) }   // warm the connection and the statements
        var known: [Double] = []
        var unknown: [Double] = []
        for pair in 0..<100 {
            known.append(try millis(account.email))
            unknown.append(try millis("nobody-\(pair)-\(account.email)"))
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let ratio = median(known) / median(unknown)
        print("ResetTimingTests: median \(String(format: "%.3f", median(known))) ms known, \(String(format: "%.3f", median(unknown))) ms unknown, ratio \(String(format: "%.2f", ratio))")
        // Against bcd42c3's binary this measured 1.22 to 1.32 in three runs; this build 0.99 to
        // 1.03 in four (BENCHMARKS.md).
        XCTAssertTrue((0.87...1.15).contains(ratio),
                      "median reset time \(median(known)) ms for an account's address against \(median(unknown)) ms for nobody's")
    }
}
