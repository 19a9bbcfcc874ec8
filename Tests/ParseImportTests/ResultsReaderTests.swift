import Foundation
import JSON
import Testing
@testable import ParseImport

/// The streaming reader of `{"results": [...]}` files.
@Suite struct ResultsReaderTests {
    /// Reads every element, or the error that stopped the file.
    static func readAll(_ text: String, chunkSize: Int = 64 * 1024, maxElementBytes: Int = 1 << 20) -> (elements: [ResultsReader.Element], error: ResultsReaderError?) {
        let reader = ResultsReader(bytes: Array(text.utf8), chunkSize: chunkSize, maxElementBytes: maxElementBytes)
        var elements: [ResultsReader.Element] = []
        do {
            while let element = try reader.next() {
                elements.append(element)
                if elements.count > 10_000 { Issue.record("reader does not stop"); break }
            }
            return (elements, nil)
        } catch {
            return (elements, error)
        }
    }

    static func values(_ elements: [ResultsReader.Element]) -> [JSONValue] {
        elements.compactMap { if case .value(let v) = $0 { v } else { nil } }
    }

    static let tricky = #"""
        {"results": [
          {"objectId":"a1","title":"braces } { and ] [ inside","n":1},
          {"objectId":"a2","title":"escaped \"quote\" and \\ backslash\\","nested":{"x":[1,[2,{"y":"]"}]]}},
          {"objectId":"a3","title":"unicode \u00e9 é 🚗","empty":{},"list":[]}
        ]}
        """#

    @Test(arguments: [1, 2, 3, 5, 7, 13, 64, 65_536])
    func objectsSplitAcrossChunkBoundariesReadTheSame(chunkSize: Int) throws {
        let (elements, error) = Self.readAll(Self.tricky, chunkSize: chunkSize)
        #expect(error == nil)
        let values = Self.values(elements)
        #expect(values.count == 3)
        #expect(values.map { $0["objectId"]?.stringValue } == ["a1", "a2", "a3"])
        #expect(values[0]["title"]?.stringValue == "braces } { and ] [ inside")
        #expect(values[1]["title"]?.stringValue == #"escaped "quote" and \ backslash\"#)
        #expect(values[1]["nested"]?["x"]?.arrayValue?.count == 2)
        #expect(values[2]["title"]?.stringValue == "unicode é é 🚗")
    }

    @Test(arguments: [
        #"{"results":[]}"#,
        "  {\n\t\"results\" :\r\n [ \n ] \n}\n",
        #"{"results": [ ]}"#,
    ])
    func emptyResultsYieldNothing(text: String) {
        let (elements, error) = Self.readAll(text, chunkSize: 3)
        #expect(error == nil)
        #expect(elements.isEmpty)
    }

    @Test func whitespaceOtherKeysAndABOMAreTolerated() {
        let text = "\u{FEFF}  {\n \"count\": 2, \"skip\": {\"results\": [\"not these\"]},\n  \"results\" : [\n\n {\"objectId\" : \"x\"}\n ,\n\t{\"objectId\":\"y\"}  \n ]\n, \"more\": true }"
        for chunkSize in [1, 4, 1024] {
            let (elements, error) = Self.readAll(text, chunkSize: chunkSize)
            #expect(error == nil)
            #expect(Self.values(elements).map { $0["objectId"]?.stringValue } == ["x", "y"])
        }
    }

    @Test func anOversizedObjectIsSkippedAndNamedAndReadingGoesOn() {
        let big = String(repeating: "z", count: 5_000)
        let text = #"{"results": [{"objectId":"small1"}, {"objectId":"BigOne","blob":"\#(big)"}, {"objectId":"small2"}]}"#
        let (elements, error) = Self.readAll(text, chunkSize: 100, maxElementBytes: 1_000)
        #expect(error == nil)
        #expect(elements.count == 3)
        guard case .oversized(_, let bytes, let objectId) = elements[1] else {
            Issue.record("expected an oversized element, got \(elements[1])")
            return
        }
        #expect(objectId == "BigOne")
        #expect(bytes > 5_000)
        #expect(Self.values(elements).map { $0["objectId"]?.stringValue } == ["small1", "small2"])
    }

    @Test func anElementThatIsNotValidJSONIsReportedAndReadingGoesOn() {
        let text = #"{"results": [{"objectId":"bad1","n":tru}, {"objectId":"ok"}]}"#
        let (elements, error) = Self.readAll(text, chunkSize: 5)
        #expect(error == nil)
        guard elements.count == 2, case .invalid(_, _, let objectId) = elements[0] else {
            Issue.record("expected an invalid element first, got \(elements)")
            return
        }
        #expect(objectId == "bad1")
        #expect(Self.values(elements).map { $0["objectId"]?.stringValue } == ["ok"])
    }

    @Test(arguments: [
        ("", "empty"),
        ("[1, 2]", "not a JSON object"),
        (#"{"other": []}"#, "no \"results\" array"),
        (#"{"results": {"a": 1}}"#, "not an array"),
        (#"{"results": [{"objectId":"a"}"#, "ends inside the results array"),
        (#"{"results": [{"objectId":"a"#, "ends inside an element"),
        (#"{"results": [{"objectId":"a"} {"objectId":"b"}]}"#, "expected ',' or ']'"),
        (#"{"results": [{"objectId":"a"},]}"#, "expected an element"),
        (#"{"results": [{"a": "unterminated]}"#, "ends inside an element"),
        (#"{"results": [{"a": 1}}]}"#, "expected ',' or ']'"),
    ])
    func malformedFilesStopWithAClearError(text: String, expected: String) {
        for chunkSize in [1, 7, 4096] {
            let (_, error) = Self.readAll(text, chunkSize: chunkSize)
            guard let error else {
                Issue.record("no error for \(text)")
                continue
            }
            #expect(error.reason.contains(expected), "\(error.reason) for \(text)")
        }
    }

    @Test func elementsBeforeABreakAreStillRead() {
        let (elements, error) = Self.readAll(#"{"results": [{"objectId":"a"}, {"objectId":"b"}, {"objectId""#, chunkSize: 4)
        #expect(Self.values(elements).count == 2)
        #expect(error != nil)
    }

    @Test func readsAFileFromDisk() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("results-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(Self.tricky.utf8).write(to: url)
        let reader = try ResultsReader(path: url.path, chunkSize: 16)
        var ids: [String?] = []
        while let element = try reader.next() {
            if case .value(let v) = element { ids.append(v["objectId"]?.stringValue) }
        }
        #expect(ids == ["a1", "a2", "a3"])
        #expect(reader.bytesRead >= Self.tricky.utf8.count - 1)
        #expect(throws: ResultsReaderError.self) { try ResultsReader(path: url.path + ".missing") }
    }
}

/// The reading thread hands elements over in file order and stops when asked.
@Suite struct PreparedStreamTests {
    static func export(_ count: Int) -> [UInt8] {
        let objects = (0..<count).map { #"{"objectId":"o\#($0)","n":\#($0)}"# }.joined(separator: ",")
        return Array(#"{"results":[\#(objects)]}"#.utf8)
    }

    @Test func elementsArriveInFileOrderThenTheStreamEnds() {
        let stream = PreparedStream<Int>(reader: ResultsReader(bytes: Self.export(5_000), chunkSize: 100), maxObjectBytes: 1_000) { fields in
            .row(fields.int("n") ?? -1, notes: [])
        }
        var seen: [Int] = []
        while let item = stream.next() {
            guard case .element(.row(let n, let id, _), _) = item else { Issue.record("unexpected \(item)"); return }
            #expect(id == "o\(n)")
            seen.append(n)
        }
        #expect(seen == Array(0..<5_000))
        #expect(stream.next() == nil)
    }

    /// Chunks the consumer took are the consumer's alone: the queue keeps at most `capacity`,
    /// even while the producer stays ahead for the whole stream.
    @Test func theQueueHoldsNoChunkAlreadyTaken() {
        final class Counted: @unchecked Sendable {
            nonisolated(unsafe) static var alive = 0
            init() { Self.alive += 1 }
            deinit { Self.alive -= 1 }
        }
        let queue = ChunkQueue<Counted>(capacity: 3)
        #expect(queue.push([Counted(), Counted()]) && queue.push([Counted(), Counted()]))
        var most = 0
        for _ in 0..<200 {
            // The producer adds a chunk before the consumer takes one: the queue is never empty.
            #expect(queue.push([Counted(), Counted()]))
            #expect(queue.pop()?.count == 2)
            most = max(most, Counted.alive)
        }
        #expect(most <= 3 * 2, "only the chunks waiting are alive: \(most) objects")
        queue.finish()
        while queue.pop() != nil {}
        #expect(Counted.alive == 0)
    }

    @Test func aBrokenFileEndsWithStoppedAfterTheElementsBeforeTheBreak() {
        var bytes = Self.export(1_200)
        bytes.removeLast(3)
        let stream = PreparedStream<Int>(reader: ResultsReader(bytes: bytes), maxObjectBytes: 1_000) { _ in .skip("x") }
        var elements = 0
        var stopped = false
        while let item = stream.next() {
            switch item {
            case .element: elements += 1
            case .stopped: stopped = true
            }
        }
        #expect(stopped && elements == 1_199)
    }

    @Test func cancellingStopsTheReadingThread() {
        let stream = PreparedStream<Int>(reader: ResultsReader(bytes: Self.export(100_000)), maxObjectBytes: 1_000) { _ in .row(0, notes: []) }
        _ = stream.next()
        stream.cancel()
        #expect(stream.next() == nil)
    }
}
