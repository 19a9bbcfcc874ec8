/// What decoding an upload into its renditions takes at its peak, estimated from its header,
/// for `DecodeBudget`. Measured with libvips 8.14 and libheif 1.15 (BENCHMARKS.md "Picture
/// memory"); over rather than under: an overestimate only makes uploads wait longer.
enum DecodeCost {
    /// libvips's and the codecs' own state, buffers of a few rows, the renditions.
    static let overhead = 4 * 1024 * 1024

    static func bytes(_ header: ImageHeader) -> Int {
        let pixels = header.pixels, sample = header.bytesPerSample
        let body: Int
        switch header.layout {
        case .jpeg(let progressive, let coefficients):
            // Shrink-on-load: libjpeg decodes at 1/2, 1/4 or 1/8 scale, so a 12 MP photo is
            // decoded at 3 MP or less; a progressive one holds its coefficients too.
            let shrink = jpegShrink(header)
            let scaled = ImageHeader.product(pixels / (shrink * shrink), header.bands * sample)
            body = scaled + (progressive ? coefficients : 0)
        case .sequential, .whole:
            body = header.decodedBytes
        case .animation:
            body = ImageHeader.product(header.decodedBytes, 2)
        }
        // HEIF: libheif decodes into YUV planes (1.5 samples a pixel for 4:2:0, 3 at most), then
        // converts them into the interleaved RGB(A) libvips reads.
        let planes = header.format == .heif ? ImageHeader.product(pixels, 3 * sample) : 0
        let (sum, overflow) = body.addingReportingOverflow(planes + overhead)
        return overflow ? Int.max : sum
    }

    /// The factor libvips's thumbnail shrinks a JPEG by while decoding, for a square of
    /// `Renditions.largeSide`: it leaves at least a factor of two for its own resize.
    static func jpegShrink(_ header: ImageHeader) -> Int {
        let shrink = min(header.width, header.height) / Renditions.largeSide
        switch shrink {
        case 16...: return 8
        case 8..<16: return 4
        case 4..<8: return 2
        default: return 1
        }
    }
}
