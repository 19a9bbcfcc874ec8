import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
enum RetryAfter {
    static let maxSeconds = 86_400

    /// Seconds to wait, or nil when the header is absent or unreadable. A date in the past is 0.
    static func seconds(_ value: String?, nowMillis: Int64) -> Int? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) {
            // Capped at a day: a service asking for longer is treated as asking for a day, so a
            // bogus header cannot park a message for years.
            return Int(value).map { min($0, maxSeconds) } ?? maxSeconds
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        let delay = date.timeIntervalSince1970 - Double(nowMillis) / 1000
        return Int(min(Double(maxSeconds), max(0, delay.rounded(.up))))
    }
}
