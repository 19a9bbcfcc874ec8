import Storage

/// The frozen hook pipeline: every write of an entity goes through `save` or `delete`.
///
/// Firing order, all on the caller's connection and therefore inside its transaction
/// (as PocketBase's `core/app.go` draws its chains):
///
///     save(entity, previous:, on: connection) {
///         beforeSave hooks of E, in registration order   // throw = refuse; nothing written
///         → write()                                        // the INSERT or UPDATE
///         → afterSave hooks of E, in registration order  // throw = roll the write back
///     }
///     delete(entity, on: connection) {
///         beforeDelete hooks of E, in registration order
///         → write()                                        // the DELETE
///         → afterDelete hooks of E, in registration order
///     }
///
/// The first error thrown (by a hook or by `write`) stops the chain and propagates
/// unchanged, so the caller's `write { }` rolls everything back, cascades included.
/// `afterSave`/`afterDelete` run before the commit: work that must reach the outside world
/// only enqueues outbox rows there (DESIGN.md, "Hooks").
///
/// Cascades: a hook that saves or deletes other entities does so through `event.hooks`,
/// which runs the same hooks one level deeper. Past `maximumCascadeDepth` levels the
/// pipeline throws `HookError.cascadeTooDeep` instead of recursing further. The depth
/// travels in the `Hooks` value handed to each event, not in global or thread-local state.
///
/// Immutable and `Sendable`: built once by `HookRegistry.build()` and read by every thread
/// without locks. Cost per call: one dictionary lookup; an entity type with no hooks only
/// runs `write`.
public final class Hooks: Sendable {
    /// The deepest cascade allowed: the call made by application code is level 1, a save or
    /// delete made by one of its hooks level 2, and so on.
    public static let maximumCascadeDepth = 32

    /// A pipeline with no hooks: `save` and `delete` only run `write`.
    public static let none = Hooks(table: [:], depth: 0)

    private let table: [ObjectIdentifier: any AnyEntityHooks]
    /// How many pipeline levels enclose calls made through this instance (0 for the set
    /// `HookRegistry.build()` returns).
    private let depth: Int

    init(table: [ObjectIdentifier: any AnyEntityHooks], depth: Int) {
        self.table = table
        self.depth = depth
    }

    /// beforeSave hooks (registration order) → `write()` → afterSave hooks (registration
    /// order), all on `connection`, i.e. inside the caller's transaction. Anything thrown
    /// propagates unchanged, so the caller's `write { }` rolls back and a refused write
    /// leaves nothing behind.
    ///
    /// - Parameters:
    ///   - entity: the entity as it will be stored.
    ///   - previous: the stored entity this write replaces; nil for an insert.
    ///   - connection: the caller's connection inside its `write { }` transaction.
    ///   - write: the INSERT or UPDATE itself.
    /// - Throws: whatever a hook or `write` throws, unchanged; `HookError.cascadeTooDeep`
    ///   when this call is nested more than `maximumCascadeDepth` levels deep.
    public func save<E: Sendable>(_ entity: E, previous: E? = nil, on connection: any DatabaseConnection, write: () throws -> Void) throws {
        let level = try enter()
        guard let entry = table[ObjectIdentifier(E.self)] else {
            try write()
            return
        }
        let hooks = EntityHooks<E>.cast(entry)
        let event = SaveEvent(entity: entity, previous: previous, connection: connection, hooks: Hooks(table: table, depth: level))
        for hook in hooks.beforeSave { try hook(event) }
        try write()
        for hook in hooks.afterSave { try hook(event) }
    }

    /// beforeDelete hooks (registration order) → `write()` → afterDelete hooks (registration
    /// order), all on `connection`, inside the caller's transaction. Errors propagate as in
    /// `save`.
    public func delete<E: Sendable>(_ entity: E, on connection: any DatabaseConnection, write: () throws -> Void) throws {
        let level = try enter()
        guard let entry = table[ObjectIdentifier(E.self)] else {
            try write()
            return
        }
        let hooks = EntityHooks<E>.cast(entry)
        let event = DeleteEvent(entity: entity, connection: connection, hooks: Hooks(table: table, depth: level))
        for hook in hooks.beforeDelete { try hook(event) }
        try write()
        for hook in hooks.afterDelete { try hook(event) }
    }

    /// How many hooks of `trigger` are registered for `type`; for tests (`@testable import`).
    func count(_ trigger: HookTrigger, for type: Any.Type) -> Int {
        table[ObjectIdentifier(type)]?.count(trigger) ?? 0
    }

    /// The level a call through this instance runs at, or `cascadeTooDeep` past the limit.
    private func enter() throws(HookError) -> Int {
        let level = depth + 1
        guard level <= Self.maximumCascadeDepth else { throw .cascadeTooDeep(depth: level) }
        return level
    }
}
