/// What decoding an upload into its renditions takes at its peak, estimated from its header,
/// for `DecodeBudget`. The factors are measured (libvips 8.14.1, libheif 1.15.1, Debian 12;
/// BENCHMARKS.md "Picture memory"), rounded up: an overestimate only makes uploads wait longer.
///
/// | upload (39 MP unless said)          | decoded form | measured peak | estimate |
/// | JPEG, baseline (shrinks on load)    | 116 MB       | 11 MiB        | 1/16 + 4 MB |
/// | JPEG, progressive (coefficients)    | 116 MB       | 104 MiB       | coefficients + 1/16 |
/// | WebP (scaled while decoding)        | 116 MB       | 5 MiB         | 1/16 + 4 MB |
/// | PNG, not interlaced (by rows)       | 116 MB       | 37 MiB        | 1/2 |
/// | PNG, interlaced (whole)             | 116 MB       | 138 MiB       | 1.5 x |
/// | PNG 16-bit RGBA interlaced, 19 MP   | 155 MB       | 214 MiB       | 1.5 x |
/// | HEIC frame or grid decoded whole (libheif: planar, then interleaved) | 116 MB | 233 MiB | 2.2 x |
/// | HEIC grid a tile at a time (`HEIFGrid`) | 116 MB   | see BENCHMARKS | shrunk grid + 2 tiles |
enum DecodeCost {
    /// libvips's and the codecs' own state, buffers of a few rows, the renditions.
    static let overhead = 4 * 1024 * 1024

    static func bytes(_ header: ImageHeader) -> Int {
        let decoded = header.decodedBytes
        let body: Int
        switch (header.format, header.layout) {
        case (_, .jpeg(let progressive, let coefficients)):
            // Shrink-on-load: libjpeg decodes at 1/2, 1/4 or 1/8 scale, so a 12 MP photo is
            // decoded at 3 MP or less; a progressive one first holds all its coefficients.
            body = scaled(header) + (progressive ? coefficients : 0)
        case (.webp, .animation):
            body = ImageHeader.product(decoded, 2)          // the canvas and a frame
        case (.webp, _):
            body = scaled(header)                           // libwebp decodes at the reduced size
        case (.heif, .heifGrid(let tileWidth, let tileHeight)):
            // The shrunk grid, and one tile at a time decoded the libheif way (6 bytes a pixel).
            let shrink = HEIFGrid.shrink(width: header.width, height: header.height, tileWidth: tileWidth,
                                         tileHeight: tileHeight, side: Renditions.largeSide)
            let tile = ImageHeader.product(ImageHeader.product(tileWidth, tileHeight), 6 * header.bytesPerSample)
            body = ImageHeader.product(header.pixels / (shrink * shrink), header.bands * header.bytesPerSample) + 2 * tile
        case (.heif, _):
            // libheif 1.15 decodes into planes, then converts them into the interleaved RGB(A)
            // libvips reads: both are held at once.
            body = ImageHeader.product(decoded, 22) / 10
        case (_, .whole):
            body = ImageHeader.product(decoded, 3) / 2
        case (_, .sequential), (_, .animation), (_, .heifGrid):
            body = decoded / 2
        }
        let (sum, overflow) = body.addingReportingOverflow(overhead)
        return overflow ? Int.max : sum
    }

    /// The decoded form at the scale libvips's thumbnail decodes a JPEG or WebP at.
    static func scaled(_ header: ImageHeader) -> Int {
        let shrink = loadShrink(header)
        return ImageHeader.product(header.pixels / (shrink * shrink), header.bands * header.bytesPerSample)
    }

    /// The factor libvips's thumbnail shrinks by while decoding, for a square of
    /// `Renditions.largeSide`: a power of two that leaves at least a factor of two for its own
    /// resize (vips_thumbnail's shrink-on-load rule).
    static func loadShrink(_ header: ImageHeader) -> Int {
        let shrink = min(header.width, header.height) / Renditions.largeSide
        switch shrink {
        case 16...: return 8
        case 8..<16: return 4
        case 4..<8: return 2
        default: return 1
        }
    }
}
