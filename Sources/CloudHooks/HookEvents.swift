import Storage

/// What a `beforeSave` or `afterSave` hook receives: the entity being written and where.
///
/// Valid only during the hook call: `connection` is the caller's transaction, lent for the
/// duration of `Hooks.save`, so an event must not be stored or sent to another thread
/// (it is deliberately not `Sendable`).
public struct SaveEvent<Entity: Sendable> {
    /// The entity as it will be (before hooks) or has been (after hooks) written.
    public let entity: Entity
    /// The entity as it was before this write; nil on insert.
    public let previous: Entity?
    /// True when this write creates the entity (`previous == nil`).
    public var isInsert: Bool { previous == nil }
    /// The caller's connection, inside its transaction: anything a hook writes here commits
    /// or rolls back with the write itself.
    public let connection: any DatabaseConnection
    /// The hook set running this event. A hook that writes other entities cascades through
    /// these (`event.hooks.delete(child, on: event.connection) { … }`), never through a
    /// `Hooks` it captured, so the cascade depth is counted and a cycle is stopped.
    public let hooks: Hooks
}

/// What a `beforeDelete` or `afterDelete` hook receives: the entity being deleted and where.
///
/// Valid only during the hook call, like `SaveEvent`.
public struct DeleteEvent<Entity: Sendable> {
    /// The entity being deleted (before hooks) or just deleted (after hooks).
    public let entity: Entity
    /// The caller's connection, inside its transaction.
    public let connection: any DatabaseConnection
    /// The hook set running this event; cascade through it (see `SaveEvent.hooks`).
    public let hooks: Hooks
}
