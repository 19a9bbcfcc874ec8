import JSON
import Storage

extension JSONWriter {
    /// Writes `key` and the row's next column as a JSON string (NULL as null), copied from the
    /// row in place without making a `String` (`RowReader.nextText`).
    mutating func field(_ key: StaticString, textFrom reader: inout RowReader) throws {
        self.key(key)
        try reader.nextText { value(utf8: $0) }
    }
}
