import Storage
import Synchronization
import TestSupport
import XCTest
@testable import CloudHooks

final class HooksTests: XCTestCase {
    private func insert(_ parent: Parent, _ c: any DatabaseConnection) throws {
        try c.execute("INSERT INTO parents (id, name) VALUES (\(parent.id), \(parent.name))")
    }

    func testBeforeHooksRunInOrderThenTheWriteThenAfterHooksInOrder() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let log = Log()
        let registry = HookRegistry()
        registry.afterSave(Parent.self) { _ in log.append("after 1") }
        registry.beforeSave(Parent.self) { _ in log.append("before 1") }
        registry.afterSave(Parent.self) { _ in log.append("after 2") }
        registry.beforeSave(Parent.self) { _ in log.append("before 2") }
        registry.beforeDelete(Parent.self) { _ in log.append("beforeDelete 1") }
        registry.afterDelete(Parent.self) { _ in log.append("afterDelete 1") }
        registry.beforeDelete(Parent.self) { _ in log.append("beforeDelete 2") }
        registry.afterDelete(Parent.self) { _ in log.append("afterDelete 2") }
        let hooks = registry.build()

        try temp.database.write { c in
            try hooks.save(Parent(id: "a"), on: c) {
                log.append("write")
                try self.insert(Parent(id: "a"), c)
            }
        }
        XCTAssertEqual(log.all, ["before 1", "before 2", "write", "after 1", "after 2"])
        XCTAssertEqual(try temp.count("parents"), 1)

        try temp.database.write { c in
            try hooks.delete(Parent(id: "a"), on: c) {
                log.append("delete")
                try c.execute("DELETE FROM parents WHERE id = \("a")")
            }
        }
        XCTAssertEqual(log.all.suffix(5), ["beforeDelete 1", "beforeDelete 2", "delete", "afterDelete 1", "afterDelete 2"])
        XCTAssertEqual(try temp.count("parents"), 0)
    }

    func testHooksSeeTheConnectionOfTheCallersTransaction() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let registry = HookRegistry()
        // The afterSave hook reads the row the write just inserted, before the commit.
        registry.afterSave(Parent.self) { event in
            let name = try event.connection.fetchValue("SELECT name FROM parents WHERE id = \(event.entity.id)", as: String.self)
            guard name == event.entity.name else { throw Refused(reason: "row not visible") }
        }
        let hooks = registry.build()
        try temp.database.write { c in
            try hooks.save(Parent(id: "a", name: "Ogier"), on: c) { try self.insert(Parent(id: "a", name: "Ogier"), c) }
        }
        XCTAssertEqual(try temp.count("parents"), 1)
    }

    func testEntityTypesDoNotSeeEachOthersHooks() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let log = Log()
        let registry = HookRegistry()
        registry.beforeSave(Parent.self) { event in log.append("parent \(event.entity.id)") }
        registry.beforeSave(Child.self) { event in log.append("child \(event.entity.id)") }
        registry.beforeSave(Box<Int>.self) { event in log.append("int box \(event.entity.value)") }
        registry.beforeSave(Box<String>.self) { event in log.append("string box \(event.entity.value)") }
        let hooks = registry.build()

        try temp.database.write { c in
            try hooks.save(Child(id: "c", parentID: "p"), on: c) {}
            try hooks.save(Box(value: 7), on: c) {}
            try hooks.save(Parent(id: "p"), on: c) {}
            try hooks.save(Box(value: "x"), on: c) {}
            try hooks.delete(Parent(id: "p"), on: c) {}
            // A type with no hooks at all only runs its write, once.
            var writes = 0
            try hooks.save(Node(id: 1), on: c) { writes += 1 }
            try hooks.delete(Node(id: 1), on: c) { writes += 1 }
            XCTAssertEqual(writes, 2)
        }
        XCTAssertEqual(log.all, ["child c", "int box 7", "parent p", "string box x"])
    }

    func testARefusingBeforeSaveLeavesNothingBehind() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let log = Log()
        let registry = HookRegistry()
        registry.beforeSave(Parent.self) { event in
            // Something a hook wrote before refusing must go too.
            try event.connection.execute("INSERT INTO parents (id, name) VALUES ('side-effect', 'x')")
            if event.entity.name.isEmpty { throw Refused(reason: "name required") }
        }
        registry.beforeSave(Parent.self) { _ in log.append("second beforeSave") }
        registry.afterSave(Parent.self) { _ in log.append("afterSave") }
        let hooks = registry.build()

        var wrote = false
        XCTAssertThrowsError(try temp.database.write { c in
            try hooks.save(Parent(id: "a", name: ""), on: c) {
                wrote = true
                try self.insert(Parent(id: "a", name: ""), c)
            }
        }) { error in
            XCTAssertEqual(error as? Refused, Refused(reason: "name required"))
        }
        XCTAssertFalse(wrote, "the write ran although a beforeSave refused it")
        XCTAssertEqual(log.all, [], "later hooks ran although a beforeSave refused")
        XCTAssertEqual(try temp.count("parents"), 0)
    }

    func testAThrowingAfterSaveRollsTheInsertBack() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let registry = HookRegistry()
        registry.afterSave(Parent.self) { _ in throw Refused(reason: "after") }
        let hooks = registry.build()

        XCTAssertThrowsError(try temp.database.write { c in
            try hooks.save(Parent(id: "a"), on: c) { try self.insert(Parent(id: "a"), c) }
        }) { error in
            XCTAssertEqual(error as? Refused, Refused(reason: "after"))
        }
        XCTAssertEqual(try temp.count("parents"), 0)
    }

    func testAWriteErrorPropagatesUnchangedAndSkipsAfterHooks() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let log = Log()
        let registry = HookRegistry()
        registry.afterSave(Parent.self) { _ in log.append("afterSave") }
        let hooks = registry.build()
        try temp.database.write { c in try self.insert(Parent(id: "a"), c) }

        XCTAssertThrowsError(try temp.database.write { c in
            try hooks.save(Parent(id: "a"), on: c) { try self.insert(Parent(id: "a"), c) }
        }) { error in
            XCTAssertTrue((error as? StorageError)?.isUniqueViolation(on: "id") ?? false, "\(error)")
        }
        XCTAssertEqual(log.all, [])
    }

    func testPreviousAndIsInsertArePassedThrough() throws {
        let temp = try TemporaryDatabase.withHookTables()
        let seen = Mutex<[(Parent, Parent?, Bool)]>([])
        let registry = HookRegistry()
        registry.beforeSave(Parent.self) { event in seen.withLock { $0.append((event.entity, event.previous, event.isInsert)) } }
        registry.afterSave(Parent.self) { event in seen.withLock { $0.append((event.entity, event.previous, event.isInsert)) } }
        let hooks = registry.build()

        try temp.database.write { c in
            try hooks.save(Parent(id: "a", name: "old"), on: c) { try self.insert(Parent(id: "a", name: "old"), c) }
            try hooks.save(Parent(id: "a", name: "new"), previous: Parent(id: "a", name: "old"), on: c) {
                try c.execute("UPDATE parents SET name = 'new' WHERE id = 'a'")
            }
        }
        let events = seen.withLock { $0 }
        XCTAssertEqual(events.count, 4)
        for event in events[0...1] {
            XCTAssertEqual(event.0, Parent(id: "a", name: "old"))
            XCTAssertNil(event.1)
            XCTAssertTrue(event.2)
        }
        for event in events[2...3] {
            XCTAssertEqual(event.0, Parent(id: "a", name: "new"))
            XCTAssertEqual(event.1, Parent(id: "a", name: "old"))
            XCTAssertFalse(event.2)
        }
    }

    func testCounts() {
        let registry = HookRegistry()
        registry.beforeSave(Parent.self) { _ in }
        registry.beforeSave(Parent.self) { _ in }
        registry.afterSave(Parent.self) { _ in }
        registry.afterDelete(Child.self) { _ in }
        registry.beforeSave(Box<Int>.self) { _ in }
        let hooks = registry.build()
        // Registering after build() does not reach the frozen set.
        registry.afterSave(Parent.self) { _ in }

        XCTAssertEqual(hooks.count(.beforeSave, for: Parent.self), 2)
        XCTAssertEqual(hooks.count(.afterSave, for: Parent.self), 1)
        XCTAssertEqual(hooks.count(.beforeDelete, for: Parent.self), 0)
        XCTAssertEqual(hooks.count(.afterDelete, for: Parent.self), 0)
        XCTAssertEqual(hooks.count(.afterDelete, for: Child.self), 1)
        XCTAssertEqual(hooks.count(.beforeSave, for: Box<Int>.self), 1)
        XCTAssertEqual(hooks.count(.beforeSave, for: Box<String>.self), 0)
        XCTAssertEqual(hooks.count(.beforeSave, for: Node.self), 0)
        XCTAssertEqual(registry.build().count(.afterSave, for: Parent.self), 2)
        for trigger in HookTrigger.allCases {
            XCTAssertEqual(Hooks.none.count(trigger, for: Parent.self), 0)
        }
    }

    func testNoneOnlyRunsTheWrite() throws {
        let temp = try TemporaryDatabase.withHookTables()
        try temp.database.write { c in
            try Hooks.none.save(Parent(id: "a"), on: c) { try self.insert(Parent(id: "a"), c) }
        }
        XCTAssertEqual(try temp.count("parents"), 1)
        try temp.database.write { c in
            try Hooks.none.delete(Parent(id: "a"), on: c) { try c.execute("DELETE FROM parents") }
        }
        XCTAssertEqual(try temp.count("parents"), 0)
    }
}
