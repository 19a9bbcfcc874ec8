import JSON
import Testing
@testable import ParseREST

/// The pure parts of the facade's writes: a body checked against a class's fields, and a batch
/// sub-path routed to the facade's own endpoints.
struct ParseWritesTests {
    static let videoFields: Set<String> = ["youtubeID", "title", "description", "nDay", "rallyId", "owner"]

    func body(_ members: [String: JSONValue]) throws -> WriteBody {
        try WriteBody(members, className: "Video", writable: Self.videoFields, ignored: ["ACL", "nLikes", "nComments"])
    }

    func code(_ members: [String: JSONValue]) -> Int? {
        do {
            _ = try body(members)
            return nil
        } catch let error as ParseError {
            return error.code?.rawValue
        } catch {
            return nil
        }
    }

    @Test func theServersFieldsAreDroppedAndOthersRefused() throws {
        let checked = try body([
            "title": .string("T"), "nLikes": .int(500), "nComments": .object(["__op": .string("Increment"), "amount": .int(1)]),
            "ACL": .object(["*": .object(["read": .bool(true)])]), "createdAt": .string("2014-01-01T00:00:00.000Z"),
        ])
        #expect(Set(checked.fields.keys) == ["title"])
        #expect(code(["speed": .int(1)]) == 105)
        #expect(code(["objectId": .string("x")]) == 105)
        #expect(code(["bad-name": .int(1)]) == 105)
    }

    @Test func typesAreCheckedAs111() throws {
        #expect(throws: ParseError.self) { try body(["nDay": .string("1")]).integer("nDay") }
        do {
            _ = try body(["nDay": .string("1")]).integer("nDay")
        } catch let error as ParseError {
            #expect(error.code == .incorrectType)
            #expect(error.message == "schema mismatch for Video.nDay; expected Number but got String")
        }
        let rally: JSONValue = .object(["__type": .string("Pointer"), "className": .string("Rallye"), "objectId": .string("r1")])
        #expect(try body(["rallyId": rally]).pointer("rallyId", to: "Rallye") == "r1")
        #expect(throws: ParseError.self) { try body(["rallyId": .string("r1")]).pointer("rallyId", to: "Rallye") }
        #expect(throws: ParseError.self) { try body(["rallyId": rally]).pointer("rallyId", to: "_User") }
        #expect(try body(["description": .object(["__op": .string("Delete")])]).string("description") == "")
        #expect(try body(["nDay": .double(2)]).integer("nDay") == 2)
    }

    @Test func batchPathsLoseTheirMountAndMatchTheEndpoints() {
        #expect(BatchRoutes.route("/parse/classes/Video") == "/classes/Video")
        #expect(BatchRoutes.route("/1/classes/Video/abc") == "/classes/Video/abc")
        #expect(BatchRoutes.route("/classes/Video") == "/classes/Video")
        #expect(BatchRoutes.route("classes/Video") == "/classes/Video")
        #expect(BatchRoutes.route("/parsed/classes/Video") == "/parsed/classes/Video")
        let parameters = BatchRoutes.match("/classes/{className}/{objectId}", "/classes/Video/abc")
        #expect(parameters?["className"] == "Video" && parameters?["objectId"] == "abc")
        #expect(BatchRoutes.match("/classes/{className}/{objectId}", "/classes/Video") == nil)
        #expect(BatchRoutes.match("/classes/{className}/{objectId}", "/classes/Video/") == nil)
        #expect(BatchRoutes.match("/users/me", "/users/me") != nil)
    }
}
