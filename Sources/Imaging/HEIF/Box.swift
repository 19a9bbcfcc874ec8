/// One ISO-BMFF box (ISO/IEC 14496-12 4.2): its type and its payload as a cursor, after the
/// size (32-bit, 64-bit `largesize`, or 0: to the end of its parent) has been checked
/// against the bytes its parent holds.
struct Box {
    let type: FourCC
    var payload: ByteCursor

    /// The boxes of `cursor`, at most `limit` of them (a crafted file cannot make a parser
    /// loop for long: every box takes at least 8 bytes, and the count is capped too).
    static func children(of cursor: ByteCursor, limit: Int = 4096) throws(ImagingError) -> [Box] {
        var cursor = cursor
        var boxes: [Box] = []
        while !cursor.isAtEnd {
            guard boxes.count < limit else { throw .undecodable }
            let start = cursor.remaining
            var size = try cursor.u32()
            let type = try cursor.fourCC()
            if size == 1 {
                let large = try cursor.u64()
                guard large <= UInt64(Int.max) else { throw .undecodable }
                size = Int(large)
            } else if size == 0 {
                size = start
            }
            let header = start - cursor.remaining
            guard size >= header, size - header <= cursor.remaining else { throw .undecodable }
            boxes.append(Box(type: type, payload: try cursor.sub(size - header)))
        }
        return boxes
    }

    /// A full box's version and flags, read off the front of its payload.
    mutating func versionAndFlags() throws(ImagingError) -> (version: Int, flags: Int) {
        let word = try payload.u32()
        return (word >> 24, word & 0xFF_FFFF)
    }
}
