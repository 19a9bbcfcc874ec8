/// The hook trigger names, kept from Parse Cloud Code.
public enum HookTrigger: String, Sendable, CaseIterable {
    case beforeSave, afterSave, beforeDelete, afterDelete
}

/// Collects hooks at start-up and freezes them into `Hooks` (Hummingbird's router/responder
/// split): registration needs no lock because it happens before any request, and the frozen
/// set is read by every thread without one.
///
/// Hooks are typed per entity: `registry.beforeSave(Video.self) { event in … }` only ever
/// sees `SaveEvent<Video>`. Hooks of one trigger and entity run in registration order.
///
/// Not `Sendable`: build it on one thread, call `build()`, and share the result.
public final class HookRegistry {
    private var table: [ObjectIdentifier: any AnyEntityHooks] = [:]

    public init() {}

    /// Adds a hook that runs before the write of every `E` saved through the pipeline;
    /// throwing refuses the write.
    public func beforeSave<E: Sendable>(_ type: E.Type, _ hook: @escaping @Sendable (SaveEvent<E>) throws -> Void) {
        update(type) { $0.beforeSave.append(hook) }
    }

    /// Adds a hook that runs after the write of every `E` saved through the pipeline, still
    /// inside the caller's transaction; throwing rolls the write back.
    public func afterSave<E: Sendable>(_ type: E.Type, _ hook: @escaping @Sendable (SaveEvent<E>) throws -> Void) {
        update(type) { $0.afterSave.append(hook) }
    }

    /// Adds a hook that runs before every `E` is deleted through the pipeline; throwing
    /// refuses the delete.
    public func beforeDelete<E: Sendable>(_ type: E.Type, _ hook: @escaping @Sendable (DeleteEvent<E>) throws -> Void) {
        update(type) { $0.beforeDelete.append(hook) }
    }

    /// Adds a hook that runs after every `E` is deleted through the pipeline, still inside
    /// the caller's transaction; throwing rolls the delete back.
    public func afterDelete<E: Sendable>(_ type: E.Type, _ hook: @escaping @Sendable (DeleteEvent<E>) throws -> Void) {
        update(type) { $0.afterDelete.append(hook) }
    }

    /// The immutable hook set. The registry can keep being used afterwards; later
    /// registrations don't reach a set already built.
    public func build() -> Hooks {
        Hooks(table: table, depth: 0)
    }

    private func update<E: Sendable>(_ type: E.Type, _ body: (inout EntityHooks<E>) -> Void) {
        let key = ObjectIdentifier(type)
        var entry = table[key].map { EntityHooks<E>.cast($0) } ?? EntityHooks<E>()
        body(&entry)
        table[key] = entry
    }
}

/// The type-erased face of one entity's hooks, so entities of different types share a table.
protocol AnyEntityHooks: Sendable {
    func count(_ trigger: HookTrigger) -> Int
}

/// One entity type's hooks, per trigger, in registration order.
struct EntityHooks<E: Sendable>: AnyEntityHooks {
    var beforeSave: [@Sendable (SaveEvent<E>) throws -> Void] = []
    var afterSave: [@Sendable (SaveEvent<E>) throws -> Void] = []
    var beforeDelete: [@Sendable (DeleteEvent<E>) throws -> Void] = []
    var afterDelete: [@Sendable (DeleteEvent<E>) throws -> Void] = []

    func count(_ trigger: HookTrigger) -> Int {
        switch trigger {
        case .beforeSave: beforeSave.count
        case .afterSave: afterSave.count
        case .beforeDelete: beforeDelete.count
        case .afterDelete: afterDelete.count
        }
    }

    /// Recovers the typed hooks from a table entry stored under `ObjectIdentifier(E.self)`.
    static func cast(_ entry: any AnyEntityHooks) -> EntityHooks<E> {
        // The table only ever stores `EntityHooks<E>` under the key `ObjectIdentifier(E.self)`
        // (see `HookRegistry.update`), so a failure here is a broken invariant, not bad input.
        guard let typed = entry as? EntityHooks<E> else {
            preconditionFailure("Hooks: table entry for \(E.self) holds \(type(of: entry))")
        }
        return typed
    }
}
