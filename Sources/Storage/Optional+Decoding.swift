extension Optional {
    /// The value, or a decoding error naming the column: for stored text that maps to an enum
    /// (a state, a platform, a kind), where nil means the row holds what no case spells.
    public func orThrow(column: String, expected: String) throws(StorageError) -> Wrapped {
        guard let self else { throw StorageError.decoding(column: column, expected: expected) }
        return self
    }
}
