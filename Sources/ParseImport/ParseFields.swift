import Auth
import JSON

/// Reading Parse's encodings of fields out of an exported object.
///
/// Pointers are `{"__type":"Pointer","className":…,"objectId":…}` (a bare id string is
/// accepted too); dates are `{"__type":"Date","iso":…}` or a plain ISO 8601 string.
struct ParseFields {
    let members: [String: JSONValue]

    init(_ members: [String: JSONValue]) { self.members = members }

    /// The object's `objectId`, when it is a non-empty string (of any shape: see `checkedObjectId`).
    var objectId: String? {
        guard let id = members["objectId"]?.stringValue, !id.isEmpty else { return nil }
        return id
    }

    /// The `objectId` when it has Parse's shape (`ObjectID`: 1 to 32 letters and digits), else
    /// why the object is skipped. Any other string was once accepted: an id spelled like a
    /// username answered for that user, and an id of 1,100 characters made a cursor too long
    /// to page past.
    var checkedObjectId: Result<String, Skip> {
        guard let id = objectId else { return .failure(Skip("missing objectId")) }
        guard ObjectID.isWellFormed(id) else { return .failure(Skip("invalid objectId (Parse ids are 1 to \(ObjectID.maximumLength) letters and digits)")) }
        return .success(id)
    }

    /// The objectId as a report may print it: as it is when well-formed, else escaped and cut,
    /// so a hostile id can neither flood the report nor forge its lines.
    static func reportable(_ id: String) -> String {
        if ObjectID.isWellFormed(id) { return id }
        let escaped = String(id.prefix(40)).debugDescription
        return id.count > 40 ? escaped + "…" : escaped
    }

    func string(_ key: String) -> String? { members[key]?.stringValue }

    func int(_ key: String) -> Int? { members[key]?.intValue }

    func bool(_ key: String) -> Bool? { members[key]?.boolValue }

    /// The objectId a pointer field points at.
    func pointer(_ key: String) -> String? {
        switch members[key] {
        case .string(let id)?:
            return id.isEmpty ? nil : id
        case .object(let object)?:
            guard object["__type"]?.stringValue ?? "Pointer" == "Pointer",
                  let id = object["objectId"]?.stringValue, !id.isEmpty else { return nil }
            return id
        default:
            return nil
        }
    }

    /// Milliseconds since 1970 (UTC) of a date field.
    func millis(_ key: String) -> Int64? {
        switch members[key] {
        case .string(let iso)?:
            return Self.parseInstant(iso)
        case .object(let object)?:
            guard object["__type"]?.stringValue == "Date", let iso = object["iso"]?.stringValue else { return nil }
            return Self.parseInstant(iso)
        default:
            return nil
        }
    }

    /// Days since 1970 (UTC) of a date field: the calendar day its instant falls on.
    func days(_ key: String) -> Int? {
        if case .string(let text)? = members[key], let days = CalendarDate.parse(text) { return days }
        guard let ms = millis(key) else { return nil }
        return Int(Self.floorDiv(ms, 86_400_000))
    }

    /// ISO 8601 in UTC with 0 to 3 fraction digits (Parse writes 3); a date alone is midnight.
    static func parseInstant(_ text: String) -> Int64? {
        if let ms = ISO8601Millis.parse(text) { return ms }
        if let days = CalendarDate.parse(text) { return Int64(days) * 86_400_000 }
        return nil
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

/// Text cut to at most `count` characters (Unicode characters, as API.md counts them).
func cut(_ text: String, to count: Int) -> String {
    text.count <= count ? text : String(text.prefix(count))
}
