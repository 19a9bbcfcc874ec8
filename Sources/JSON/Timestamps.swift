// Hand-written date arithmetic: DateFormatter is slow and not thread-safe, and these formats
// are fixed. Day/civil conversions are Howard Hinnant's algorithms
// (https://howardhinnant.github.io/date_algorithms.html), valid for the proleptic Gregorian calendar.

/// Days since 1970-01-01 for a civil date (month 1...12, day 1...31, not validated here).
@usableFromInline func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01.
@usableFromInline func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
}

func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
}

/// "00", "01", ... "99": two digits per lookup, so a timestamp takes 7 lookups instead of 17
/// divisions, and no intermediate array (both showed up in profiles of list pages).
let digitPairs: StaticString = """
    00010203040506070809101112131415161718192021222324252627282930313233343536373839\
    40414243444546474849505152535455565758596061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899
    """

/// Stores the two digits of `value` (0...99) at `p`.
@inline(__always)
func storeDigitPair(_ value: Int, at p: UnsafeMutablePointer<UInt8>) {
    let pair = digitPairs.utf8Start + 2 * value
    p[0] = pair[0]
    p[1] = pair[1]
}

/// Appends `value` zero-padded to `width` digits (value must be non-negative; wider values
/// are written in full).
func appendPadded(_ value: Int, width: Int, to out: inout [UInt8]) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
        let base = digits.baseAddress!
        var v = value
        var i = 20
        while v >= 100 {
            i -= 2
            storeDigitPair(v % 100, at: base + i)
            v /= 100
        }
        if v >= 10 {
            i -= 2
            storeDigitPair(v, at: base + i)
        } else {
            i -= 1
            base[i] = UInt8(ascii: "0") &+ UInt8(v)
        }
        while 20 - i < width {
            i -= 1
            base[i] = UInt8(ascii: "0")
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i...]))
    }
}

/// Reads exactly `count` ASCII digits at `offset`.
func readDigits(_ bytes: ArraySlice<UInt8>, _ offset: Int, _ count: Int) -> Int? {
    let start = bytes.startIndex + offset
    guard start + count <= bytes.endIndex else { return nil }
    var v = 0
    for b in bytes[start..<start + count] {
        guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
        v = v * 10 + Int(b - UInt8(ascii: "0"))
    }
    return v
}

/// `YYYY-MM-DD` calendar dates (UTC), as days since 1970-01-01.
public enum CalendarDate {
    /// Formats a day count as `YYYY-MM-DD` (years 0...9999 are four digits).
    public static func format(daysSince1970: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(10)
        write(daysSince1970: daysSince1970, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the formatted date to `out` (what `format` returns, without a String).
    public static func write(daysSince1970: Int, to out: inout [UInt8]) {
        let (y, m, d) = civilFromDays(daysSince1970)
        guard (0...9999).contains(y) else {
            if y < 0 { out.append(UInt8(ascii: "-")) }
            appendPadded(abs(y), width: 4, to: &out)
            out.append(UInt8(ascii: "-"))
            appendPadded(m, width: 2, to: &out)
            out.append(UInt8(ascii: "-"))
            appendPadded(d, width: 2, to: &out)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { buffer in
            store(year: y, month: m, day: d, at: buffer.baseAddress!)
            out.append(contentsOf: buffer)
        }
    }

    /// Stores `YYYY-MM-DD` (10 bytes) at `p`; the year is 0...9999.
    @inline(__always)
    static func store(year: Int, month: Int, day: Int, at p: UnsafeMutablePointer<UInt8>) {
        storeDigitPair(year / 100, at: p)
        storeDigitPair(year % 100, at: p + 2)
        p[4] = UInt8(ascii: "-")
        storeDigitPair(month, at: p + 5)
        p[7] = UInt8(ascii: "-")
        storeDigitPair(day, at: p + 8)
    }

    /// Parses exactly `YYYY-MM-DD`; nil unless it names a real date (2023-02-29 is nil).
    public static func parse(_ s: String) -> Int? {
        let bytes = ArraySlice(s.utf8)
        guard bytes.count == 10 else { return nil }
        return parseDate(bytes)
    }

    static func parseDate(_ bytes: ArraySlice<UInt8>) -> Int? {
        let b = bytes.startIndex
        guard bytes.count >= 10, bytes[b + 4] == UInt8(ascii: "-"), bytes[b + 7] == UInt8(ascii: "-"),
              let y = readDigits(bytes, 0, 4), let m = readDigits(bytes, 5, 2), let d = readDigits(bytes, 8, 2),
              (1...12).contains(m), d >= 1, d <= daysInMonth(year: y, month: m)
        else { return nil }
        return daysFromCivil(year: y, month: m, day: d)
    }
}

/// ISO 8601 UTC timestamps with milliseconds (`2014-04-05T10:15:30.123Z`).
public enum ISO8601Millis {
    /// Formats milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.fffZ`, UTC.
    public static func format(millisecondsSince1970 ms: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        write(millisecondsSince1970: ms, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the formatted timestamp to `out` (what `format` returns, without a String).
    public static func write(millisecondsSince1970 ms: Int64, to out: inout [UInt8]) {
        // Floor division so instants before 1970 land on the right day.
        let msPerDay: Int64 = 86_400_000
        var days = ms / msPerDay
        var rem = ms % msPerDay
        if rem < 0 { rem += msPerDay; days -= 1 }
        let r = Int(rem)
        let (y, m, d) = civilFromDays(Int(days))
        guard (0...9999).contains(y) else {
            CalendarDate.write(daysSince1970: Int(days), to: &out)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 14) { buffer in
                storeTime(r, at: buffer.baseAddress!)
                out.append(contentsOf: buffer)
            }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            let p = buffer.baseAddress!
            CalendarDate.store(year: y, month: m, day: d, at: p)
            storeTime(r, at: p + 10)
            out.append(contentsOf: buffer)
        }
    }

    /// Stores `THH:MM:SS.fffZ` (14 bytes) at `p` for `r` milliseconds into the day.
    @inline(__always)
    static func storeTime(_ r: Int, at p: UnsafeMutablePointer<UInt8>) {
        let seconds = r / 1000
        let millis = r % 1000
        p[0] = UInt8(ascii: "T")
        storeDigitPair(seconds / 3600, at: p + 1)
        p[3] = UInt8(ascii: ":")
        storeDigitPair(seconds / 60 % 60, at: p + 4)
        p[6] = UInt8(ascii: ":")
        storeDigitPair(seconds % 60, at: p + 7)
        p[9] = UInt8(ascii: ".")
        p[10] = UInt8(ascii: "0") &+ UInt8(millis / 100)
        storeDigitPair(millis % 100, at: p + 11)
        p[13] = UInt8(ascii: "Z")
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.fffZ` (1 to 3 fraction digits).
    /// Nil for anything else, including impossible dates and times.
    public static func parse(_ s: String) -> Int64? {
        let bytes = ArraySlice(s.utf8)
        let b = bytes.startIndex
        guard bytes.count >= 20, let days = CalendarDate.parseDate(bytes),
              bytes[b + 10] == UInt8(ascii: "T"), bytes[b + 13] == UInt8(ascii: ":"), bytes[b + 16] == UInt8(ascii: ":"),
              let h = readDigits(bytes, 11, 2), let mi = readDigits(bytes, 14, 2), let sec = readDigits(bytes, 17, 2),
              h < 24, mi < 60, sec < 60, bytes.last == UInt8(ascii: "Z")
        else { return nil }
        var millis = 0
        let fractionLength = bytes.count - 21  // between ':SS' and 'Z', minus the dot
        if bytes.count == 20 {
            millis = 0
        } else {
            guard bytes[b + 19] == UInt8(ascii: "."), (1...3).contains(fractionLength),
                  let f = readDigits(bytes, 20, fractionLength)
            else { return nil }
            millis = f * [1, 100, 10, 1][fractionLength]
        }
        let seconds = Int64(days) * 86_400 + Int64(h * 3600 + mi * 60 + sec)
        return seconds * 1000 + Int64(millis)
    }
}
