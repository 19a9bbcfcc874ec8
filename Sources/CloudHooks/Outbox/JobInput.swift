import JSON

/// An outbox job's JSON payload, written by the code that enqueues it and read strictly by
/// its handler: a malformed payload is a bug, and the job dies after its retries instead of
/// doing something else.
package struct JobInput {
    package struct Malformed: Error, CustomStringConvertible {
        package let description: String
    }

    package let fields: [String: JSONValue]

    package init(_ job: OutboxJob) throws {
        guard let object = try JSONValue.parse(Array(job.payload.utf8)).objectValue else { throw Malformed(description: "payload is not an object") }
        fields = object
    }

    /// The payload text for `fields`.
    package static func encode(_ fields: [String: JSONValue]) -> String {
        JSONValue.object(fields).encodedText
    }

    package func string(_ key: String) throws -> String {
        guard let value = fields[key]?.stringValue else { throw Malformed(description: "payload has no string \(key)") }
        return value
    }

    package func int(_ key: String) throws -> Int64 {
        guard let value = fields[key]?.intValue else { throw Malformed(description: "payload has no integer \(key)") }
        return Int64(value)
    }

    package func bool(_ key: String) throws -> Bool {
        guard let value = fields[key]?.boolValue else { throw Malformed(description: "payload has no boolean \(key)") }
        return value
    }
}
