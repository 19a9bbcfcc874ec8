/// The shape of an object id: 1 to 32 ASCII letters and digits.
///
/// New ids are 10 of these characters (`SecureRandom.alphanumericID`), the shape of Parse's
/// `objectId`s; an import accepts Parse's own range, up to 32. Anything else (a dash, a path
/// separator, a control character, an id too long to fit in a cursor) is refused where ids
/// enter, and is never read as an id where a path may name an id or a username.
public enum ObjectID {
    public static let maximumLength = 32

    public static func isWellFormed(_ value: String) -> Bool {
        let bytes = value.utf8
        return (1...maximumLength).contains(bytes.count) && bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
    }
}
