/// Calls `body` with the collection's bytes laid out contiguously.
///
/// Arrays, slices and `String.UTF8View` of native strings are used in place; any other collection
/// is copied into a temporary array first. The buffer is valid only during the call.
@inline(__always)
func withContiguousBytes<C: Collection<UInt8>, R>(
    _ bytes: C, _ body: (UnsafeBufferPointer<UInt8>) -> R
) -> R {
    // Unsafe pointers: both calls hand `body` a buffer that is valid only during the call, and
    // `body` never lets it escape (every caller passes it straight to C or copies out of it).
    if let result = bytes.withContiguousStorageIfAvailable(body) {
        return result
    }
    return Array(bytes).withUnsafeBufferPointer(body)
}
