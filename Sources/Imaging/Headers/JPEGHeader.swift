/// A JPEG's frame header (SOFn): its size, components, precision and sampling, found by
/// walking the marker segments from SOI; nothing past the first SOF is read.
enum JPEGHeader {
    /// Segments walked before giving up (APPn blocks, tables); real files have a dozen.
    static let maxSegments = 4096

    static func read(_ bytes: [UInt8]) throws(ImagingError) -> ImageHeader {
        var cursor = ByteCursor(bytes, from: 2)
        for _ in 0..<maxSegments {
            guard try cursor.u8() == 0xFF else { throw .undecodable }
            var marker = try cursor.u8()
            while marker == 0xFF { marker = try cursor.u8() }   // fill bytes
            switch marker {
            case 0x01, 0xD0...0xD7:
                continue                                      // no length
            case 0xD8, 0xD9, 0xDA:
                throw .undecodable                            // a scan or the end before any frame
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                return try frame(&cursor, progressive: [0xC2, 0xC6, 0xCA, 0xCE].contains(marker))
            default:
                let length = try cursor.u16()
                guard length >= 2 else { throw .undecodable }
                try cursor.skip(length - 2)
            }
        }
        throw .undecodable
    }

    private static func frame(_ cursor: inout ByteCursor, progressive: Bool) throws(ImagingError) -> ImageHeader {
        let length = try cursor.u16()
        let precision = Int(try cursor.u8())
        let height = try cursor.u16(), width = try cursor.u16()
        let count = Int(try cursor.u8())
        // A height of 0 (defined later by a DNL marker) is not something libjpeg reads.
        guard width > 0, height > 0, [1, 3, 4].contains(count), length == 8 + 3 * count else { throw .undecodable }
        var sampling: [(h: Int, v: Int)] = []
        for _ in 0..<count {
            _ = try cursor.u8()
            let factors = Int(try cursor.u8())
            _ = try cursor.u8()
            let h = factors >> 4, v = factors & 15
            guard (1...4).contains(h), (1...4).contains(v) else { throw .undecodable }
            sampling.append((h, v))
        }
        // Progressive: libjpeg keeps every component's coefficients, in whole 8 x 8 blocks
        // of the MCU grid, 2 bytes each, until the last scan.
        let maxH = sampling.map(\.h).max() ?? 1, maxV = sampling.map(\.v).max() ?? 1
        let mcuColumns = (width + 8 * maxH - 1) / (8 * maxH), mcuRows = (height + 8 * maxV - 1) / (8 * maxV)
        let coefficients = sampling.reduce(0) { $0 + mcuColumns * $1.h * 8 * mcuRows * $1.v * 8 }
        return ImageHeader(format: .jpeg, width: width, height: height, bands: count,
                           bytesPerSample: precision > 8 ? 2 : 1,
                           layout: .jpeg(progressive: progressive, coefficientBytes: coefficients * 2))
    }
}
