import Crypto

/// One component of a keyset position, e.g. a `created_at` in milliseconds or an id.
enum CursorValue: Sendable, Hashable {
    case int(Int64)
    case string(String)
    /// Kept bit for bit (a search rank, say): `-0.0` and every NaN payload come back as they went.
    case double(Double)
}

/// Turns keyset positions into opaque, authenticated cursors bound to one list (API.md,
/// "Conventions": a tampered cursor or one from another list is 400 `invalid_cursor`).
///
/// Wire form: `base64url(payload || tag)`, unpadded, where
///
///     payload = 0x01 (format version) value*
///     value   = 0x01 zigzag-varint                   int
///             | 0x02 varint(byteCount) UTF-8 bytes   string
///             | 0x03 8-byte big-endian IEEE 754 bits  double
///     tag     = first 16 bytes of HMAC-SHA256(key, UInt64-BE(scope byte count) || scope || payload)
///
/// The scope is not in the cursor: it is mixed into the MAC, so a cursor presented to
/// another list (another route, another parameter, another caller) fails verification like
/// a tampered one. The length prefix keeps `scope || payload` unambiguous. A typical
/// `(Int64 millis, 10-character id)` position is 20 payload bytes, 48 characters in all.
///
/// A 128-bit tag is plenty for an online check: a forger gets one guess per request.
/// Cursors are not encrypted; a client that decodes one learns only the position of an
/// item it has already been shown.
struct CursorCodec: Sendable {
    /// Cursors longer than this (in UTF-8 bytes) are refused before any decoding work.
    static let maximumLength = 1024
    /// The same for a `prevCursor`, which also carries the positions of up to a page of items
    /// shown above its mark (`RefreshPosition`): 100 of them are about 2.8 KB.
    static let maximumRefreshLength = 4096
    static let tagLength = 16
    private static let formatVersion: UInt8 = 0x01

    private enum Tag: UInt8 {
        case int = 0x01, string = 0x02, double = 0x03
    }

    private let key: HMACKey

    init(key: HMACKey) {
        self.key = key
    }

    /// The cursor for `position` in the list named by `scope`.
    ///
    /// `scope` names the list exactly: the route, the parameters that define the list, and
    /// the caller when the list is per caller, e.g. `"GET /v1/videos/{id}/comments|id=abc"`.
    /// Build it the same way in `encode` and `decode`.
    func encode(_ position: [CursorValue], scope: String) -> String {
        var payload: [UInt8] = [Self.formatVersion]
        for value in position {
            switch value {
            case .int(let i):
                payload.append(Tag.int.rawValue)
                Self.appendVarint(UInt64(bitPattern: (i << 1) ^ (i >> 63)), to: &payload)
            case .string(let s):
                payload.append(Tag.string.rawValue)
                Self.appendVarint(UInt64(s.utf8.count), to: &payload)
                payload.append(contentsOf: s.utf8)
            case .double(let d):
                payload.append(Tag.double.rawValue)
                let bits = d.bitPattern
                for shift in stride(from: 56, through: 0, by: -8) {
                    payload.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
                }
            }
        }
        let tag = key.authenticationCode(for: Self.macInput(scope: scope, payload: payload[...])).prefix(Self.tagLength)
        return Base64URL.encode(payload + tag)
    }

    /// The position in `cursor`, if it was made by this codec's key for this `scope`.
    ///
    /// - Throws: `CursorError.unreadable` (400 `invalid_cursor`) for anything else: too long (checked
    ///   before decoding), not base64url, too short, a tag that does not verify (compared in
    ///   constant time), or a payload this version cannot read. The message never says which.
    func decode(_ cursor: String, scope: String, maximumLength: Int = Self.maximumLength) throws(CursorError) -> [CursorValue] {
        guard cursor.utf8.count <= maximumLength,
              let bytes = Base64URL.decode(cursor),
              bytes.count >= 1 + Self.tagLength
        else { throw .unreadable }
        let payload = bytes[..<(bytes.count - Self.tagLength)]
        let tag = bytes[(bytes.count - Self.tagLength)...]
        let expected = key.authenticationCode(for: Self.macInput(scope: scope, payload: payload)).prefix(Self.tagLength)
        guard constantTimeEquals(expected, tag), let position = Self.parse(payload) else { throw .unreadable }
        return position
    }

    private static func macInput(scope: String, payload: ArraySlice<UInt8>) -> [UInt8] {
        var input: [UInt8] = []
        input.reserveCapacity(8 + scope.utf8.count + payload.count)
        let length = UInt64(scope.utf8.count)
        for shift in stride(from: 56, through: 0, by: -8) {
            input.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
        }
        input.append(contentsOf: scope.utf8)
        input.append(contentsOf: payload)
        return input
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Reads a payload written by `encode`, or nil. Only authenticated payloads reach this,
    /// but it is still strict: it never traps and never reads past the end.
    private static func parse(_ payload: ArraySlice<UInt8>) -> [CursorValue]? {
        var index = payload.startIndex
        guard index < payload.endIndex, payload[index] == formatVersion else { return nil }
        index += 1
        var values: [CursorValue] = []
        while index < payload.endIndex {
            guard let tag = Tag(rawValue: payload[index]) else { return nil }
            index += 1
            switch tag {
            case .int:
                guard let zigzag = readVarint(payload, &index) else { return nil }
                values.append(.int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)))
            case .string:
                guard let count = readVarint(payload, &index),
                      count <= UInt64(payload.endIndex - index),
                      let s = String(validating: payload[index..<(index + Int(count))], as: UTF8.self)
                else { return nil }
                index += Int(count)
                values.append(.string(s))
            case .double:
                guard payload.endIndex - index >= 8 else { return nil }
                var bits: UInt64 = 0
                for byte in payload[index..<(index + 8)] { bits = bits << 8 | UInt64(byte) }
                index += 8
                values.append(.double(Double(bitPattern: bits)))
            }
        }
        return values
    }

    /// A little-endian base-128 varint of at most 10 bytes that fits in 64 bits, or nil.
    private static func readVarint(_ bytes: ArraySlice<UInt8>, _ index: inout Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if shift == 63 && byte > 1 { return nil }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }
}

/// Why a cursor is refused; `APIErrors` answers both with 400 `invalid_cursor` (field `cursor`).
enum CursorError: Error, Equatable {
    /// Not made by this codec's key for this list: too long, not base64url, too short, a tag
    /// that does not verify, or a payload this version cannot read (the answer never says which).
    case unreadable
    /// Made by this server for this list, but not in the list's shape (a cursor format from
    /// another release).
    case foreignShape
}
