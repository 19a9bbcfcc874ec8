/// Failures of the hook pipeline itself. Errors thrown by hooks propagate unchanged and are
/// never wrapped in this type.
public enum HookError: Error, Sendable, Equatable {
    /// A chain of hooks triggered saves or deletes through `event.hooks` more than
    /// `Hooks.maximumCascadeDepth` levels deep (almost certainly a cycle). `depth` is the
    /// level that was refused. Thrown instead of overflowing the stack, so the caller's
    /// transaction rolls back.
    case cascadeTooDeep(depth: Int)
}

extension HookError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .cascadeTooDeep(let depth): "hook cascade too deep (level \(depth)); is there a cycle?"
        }
    }
}
