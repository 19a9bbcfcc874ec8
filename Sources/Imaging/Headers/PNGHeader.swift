/// A PNG's IHDR, and whether a `tRNS` chunk before the pixels adds an alpha band.
enum PNGHeader {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Chunks looked at before the first IDAT (a PNG has a handful; a file with thousands of
    /// ancillary chunks is not looked through for ever).
    static let maxChunks = 1024

    static func read(_ bytes: [UInt8]) throws(ImagingError) -> ImageHeader {
        var cursor = ByteCursor(bytes, from: signature.count)
        guard try cursor.u32() == 13, try cursor.fourCC() == FourCC("IHDR") else { throw .undecodable }
        let width = try cursor.u32(), height = try cursor.u32()
        let depth = Int(try cursor.u8()), colour = Int(try cursor.u8())
        _ = try cursor.u8(); _ = try cursor.u8()   // compression, filter: libpng checks them
        let interlace = try cursor.u8()
        try cursor.skip(4)                          // CRC
        guard width > 0, height > 0, interlace <= 1 else { throw .undecodable }
        var bands: Int
        switch (colour, depth) {
        case (0, 1), (0, 2), (0, 4), (0, 8), (0, 16): bands = 1
        case (2, 8), (2, 16): bands = 3
        case (3, 1), (3, 2), (3, 4), (3, 8): bands = 3   // a palette decodes to RGB
        case (4, 8), (4, 16): bands = 2
        case (6, 8), (6, 16): bands = 4
        default: throw .undecodable
        }
        if bands == 1 || bands == 3, try hasTransparency(&cursor) { bands += 1 }
        return ImageHeader(format: .png, width: width, height: height, bands: bands,
                           bytesPerSample: depth == 16 ? 2 : 1, layout: interlace == 1 ? .whole : .sequential)
    }

    /// Whether a `tRNS` chunk comes before the first `IDAT` (it must, to count).
    private static func hasTransparency(_ cursor: inout ByteCursor) throws(ImagingError) -> Bool {
        for _ in 0..<maxChunks {
            guard cursor.remaining >= 12 else { return false }
            let length = try cursor.u32()
            let kind = try cursor.fourCC()
            if kind == FourCC("tRNS") { return true }
            if kind == FourCC("IDAT") || kind == FourCC("IEND") { return false }
            guard length <= cursor.remaining - 4 else { throw .undecodable }
            try cursor.skip(length + 4)
        }
        return false
    }
}
