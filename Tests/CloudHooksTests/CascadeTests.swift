import CloudHooks
import Storage
import TestSupport
import XCTest

final class CascadeTests: XCTestCase {
    /// Parent deletes cascade to children through the pipeline, so the children's own hooks run.
    private func makeCascadingHooks(log: Log, refuseChild: String? = nil) -> Hooks {
        let registry = HookRegistry()
        registry.beforeDelete(Parent.self) { event in
            let rows = try event.connection.fetchAll("SELECT id FROM children WHERE parent_id = \(event.entity.id) ORDER BY id")
            for row in rows {
                let child = Child(id: try row.decode("id", as: String.self), parentID: event.entity.id)
                try event.hooks.delete(child, on: event.connection) {
                    try event.connection.execute("DELETE FROM children WHERE id = \(child.id)")
                }
            }
        }
        registry.beforeDelete(Child.self) { event in
            if event.entity.id == refuseChild { throw Refused(reason: "keep \(event.entity.id)") }
        }
        registry.afterDelete(Child.self) { event in
            // Runs after the child's DELETE: the row is already gone on this connection.
            let still = try event.connection.fetchValue("SELECT count(*) FROM children WHERE id = \(event.entity.id)", as: Int.self)
            log.append("child \(event.entity.id) deleted, rows left \(still ?? -1)")
        }
        registry.afterDelete(Parent.self) { event in log.append("parent \(event.entity.id) deleted") }
        return registry.build()
    }

    private func seed(_ temp: TemporaryDatabase) throws {
        try temp.database.write { c in
            try c.executeScript("""
                INSERT INTO parents (id, name) VALUES ('p', 'parent'), ('q', 'other');
                INSERT INTO children (id, parent_id) VALUES ('c1', 'p'), ('c2', 'p'), ('c3', 'q');
                """)
        }
    }

    func testDeletingAParentDeletesItsChildrenThroughTheirHooks() throws {
        let temp = try TemporaryDatabase.withHookTables()
        try seed(temp)
        let log = Log()
        let hooks = makeCascadingHooks(log: log)

        try temp.database.write { c in
            try hooks.delete(Parent(id: "p"), on: c) { try c.execute("DELETE FROM parents WHERE id = 'p'") }
        }
        XCTAssertEqual(log.all, ["child c1 deleted, rows left 0", "child c2 deleted, rows left 0", "parent p deleted"])
        XCTAssertEqual(try temp.count("parents"), 1)
        XCTAssertEqual(try temp.database.read { c in try c.fetchAll("SELECT id FROM children ORDER BY id").map { try $0.decode("id", as: String.self) } }, ["c3"])
    }

    func testARefusalDeepInACascadeRollsBackTheWholeWrite() throws {
        let temp = try TemporaryDatabase.withHookTables()
        try seed(temp)
        let log = Log()
        let hooks = makeCascadingHooks(log: log, refuseChild: "c2")

        XCTAssertThrowsError(try temp.database.write { c in
            try hooks.delete(Parent(id: "p"), on: c) { try c.execute("DELETE FROM parents WHERE id = 'p'") }
        }) { error in
            XCTAssertEqual(error as? Refused, Refused(reason: "keep c2"))
        }
        // c1 had been deleted (and its afterDelete ran) before c2 refused: all of it is undone.
        XCTAssertEqual(log.all, ["child c1 deleted, rows left 0"])
        XCTAssertEqual(try temp.count("parents"), 2)
        XCTAssertEqual(try temp.count("children"), 3)
    }

    func testACycleThrowsCascadeTooDeepAndLeavesNothingBehind() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let registry = HookRegistry()
        // Saving node n saves node n + 1, forever.
        registry.afterSave(Node.self) { event in
            let next = Node(id: event.entity.id + 1)
            try event.hooks.save(next, on: event.connection) {
                try event.connection.execute("INSERT INTO nodes (id) VALUES (\(next.id))")
            }
        }
        let hooks = registry.build()

        XCTAssertThrowsError(try temp.database.write { c in
            try hooks.save(Node(id: 1), on: c) { try c.execute("INSERT INTO nodes (id) VALUES (1)") }
        }) { error in
            XCTAssertEqual(error as? HookError, .cascadeTooDeep(depth: Hooks.maximumCascadeDepth + 1))
        }
        XCTAssertEqual(try temp.count("nodes"), 0)
    }

    func testACascadeExactlyAtTheLimitSucceeds() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let registry = HookRegistry()
        // A chain that stops by itself at the deepest level allowed.
        registry.afterSave(Node.self) { event in
            guard event.entity.id < Hooks.maximumCascadeDepth else { return }
            let next = Node(id: event.entity.id + 1)
            try event.hooks.save(next, on: event.connection) {
                try event.connection.execute("INSERT INTO nodes (id) VALUES (\(next.id))")
            }
        }
        let hooks = registry.build()

        try temp.database.write { c in
            try hooks.save(Node(id: 1), on: c) { try c.execute("INSERT INTO nodes (id) VALUES (1)") }
        }
        XCTAssertEqual(try temp.count("nodes"), Hooks.maximumCascadeDepth)
    }

    func testTheDepthBelongsToTheCallChainNotToTheHookSet() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let registry = HookRegistry()
        registry.afterSave(Node.self) { event in
            guard event.entity.id < Hooks.maximumCascadeDepth else { return }
            let next = Node(id: event.entity.id + 1)
            try event.hooks.save(next, on: event.connection) {
                try event.connection.execute("INSERT INTO nodes (id) VALUES (\(next.id))")
            }
        }
        let hooks = registry.build()
        // Two deep chains in a row, on the same frozen set: the first does not use up the second's depth.
        for _ in 0..<2 {
            try temp.database.write { c in
                try c.execute("DELETE FROM nodes")
                try hooks.save(Node(id: 1), on: c) { try c.execute("INSERT INTO nodes (id) VALUES (1)") }
            }
        }
        XCTAssertEqual(try temp.count("nodes"), Hooks.maximumCascadeDepth)
    }
}
