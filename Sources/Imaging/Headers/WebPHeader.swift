/// A WebP's size from its first chunk: `VP8 ` (lossy), `VP8L` (lossless) or `VP8X` (extended,
/// whose canvas must then be the size of its still image's own bitstream).
enum WebPHeader {
    static let maxChunks = 1024

    static func read(_ bytes: [UInt8]) throws(ImagingError) -> ImageHeader {
        var riff = ByteCursor(bytes, from: 4)
        let declared = try riff.u32le()
        // The RIFF length may be shorter than the upload (trailing bytes), not longer.
        guard declared >= 4, declared <= bytes.count - 8 else { throw .undecodable }
        var cursor = ByteCursor(bytes, from: 12, to: 8 + declared)
        let kind = try cursor.fourCC()
        let length = try cursor.u32le()
        var chunk = try cursor.sub(min(length, cursor.remaining))
        switch kind {
        case FourCC("VP8 "), FourCC("VP8L"):
            let (width, height, alpha) = try bitstreamSize(kind, &chunk)
            return header(width, height, alpha: alpha)
        case FourCC("VP8X"):
            let flags = try chunk.u8()
            try chunk.skip(3)
            let width = try chunk.u24le() + 1, height = try chunk.u24le() + 1
            let alpha = flags & 0x10 != 0, animated = flags & 0x02 != 0
            if !animated {
                // The still image's bitstream is the frame decoded: it must be the canvas.
                if length & 1 == 1 { try cursor.skip(min(1, cursor.remaining)) }
                let (codedWidth, codedHeight) = try stillImageSize(&cursor)
                guard codedWidth == width, codedHeight == height else {
                    throw .codedSizeMismatch(width: width, height: height, codedWidth: codedWidth, codedHeight: codedHeight)
                }
            }
            // An animation's frames are checked against the canvas by libwebp's demuxer; the
            // canvas and one frame are held.
            return header(width, height, alpha: alpha || animated, animated: animated)
        default:
            throw .undecodable
        }
    }

    private static func header(_ width: Int, _ height: Int, alpha: Bool, animated: Bool = false) -> ImageHeader {
        ImageHeader(format: .webp, width: width, height: height, bands: alpha ? 4 : 3, bytesPerSample: 1, layout: animated ? .animation : .whole)
    }

    /// The `VP8 ` or `VP8L` chunk after a VP8X's ancillary chunks (ICCP, ALPH, EXIF...).
    private static func stillImageSize(_ cursor: inout ByteCursor) throws(ImagingError) -> (Int, Int) {
        for _ in 0..<maxChunks {
            let kind = try cursor.fourCC()
            let length = try cursor.u32le()
            var chunk = try cursor.sub(min(length, cursor.remaining))
            if kind == FourCC("VP8 ") || kind == FourCC("VP8L") {
                let (width, height, _) = try bitstreamSize(kind, &chunk)
                return (width, height)
            }
            try cursor.skip(min(length & 1, cursor.remaining))
        }
        throw .undecodable
    }

    private static func bitstreamSize(_ kind: FourCC, _ chunk: inout ByteCursor) throws(ImagingError) -> (Int, Int, Bool) {
        if kind == FourCC("VP8L") {
            guard try chunk.u8() == 0x2F else { throw .undecodable }
            let bits = try chunk.u32le()
            return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1, bits >> 28 & 1 == 1)
        }
        // VP8 key frame: a 3-byte frame tag, the start code 9d 01 2a, then 14-bit sizes.
        let tag = try chunk.u24le()
        guard tag & 1 == 0, try chunk.u8() == 0x9D, try chunk.u8() == 0x01, try chunk.u8() == 0x2A else { throw .undecodable }
        let width = try chunk.u16le() & 0x3FFF, height = try chunk.u16le() & 0x3FFF
        guard width > 0, height > 0 else { throw .undecodable }
        return (width, height, false)
    }
}
