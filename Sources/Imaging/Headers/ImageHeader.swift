/// What an upload is and what it decodes to, read by Pacenote itself from its bytes before
/// libvips or any codec sees them (API.md "Profile pictures"): the format from its magic
/// numbers (and for HEIF its brands and coded items), the size the coded frames have, not
/// only the one a header claims, and the bytes the decoded form takes.
///
/// Why by hand: libvips reports what the container's header says (an HEIF's `ispe`, the
/// first bytes' guess at a format), and the codecs then allocate what the coded stream says,
/// which a crafted file makes differ (a 3 KB file whose `ispe` says 1000 x 1000 decoding a
/// 16000 x 16000 frame). These readers are bounded: every length is checked against the
/// bytes there are, nesting is limited, nothing is allocated for a declared size.
public struct ImageHeader: Sendable, Equatable {
    public let format: ImageFormat
    /// The displayed size (an HEIF grid's output size, a JPEG's frame).
    public let width: Int
    public let height: Int
    /// Channels decoded: grey 1, grey + alpha 2, RGB 3, RGBA or CMYK 4.
    public let bands: Int
    /// 2 for 16-bit samples (PNG, high bit-depth HEIC), else 1.
    public let bytesPerSample: Int
    /// How the decoder holds the image, which sets what a decode costs (`DecodeCost`).
    let layout: Layout

    enum Layout: Sendable, Equatable {
        /// Decoded a band of rows at a time (a PNG that is not interlaced).
        case sequential
        /// Decoded whole into memory first (an interlaced PNG, a WebP, an HEIF frame).
        case whole
        /// An animated WebP: its canvas and the frame being composited onto it.
        case animation
        /// An HEIC grid decoded a tile at a time (`HEIFGrid`), each tile shrunk at once.
        case heifGrid(tileWidth: Int, tileHeight: Int)
        /// A JPEG: baseline ones shrink while decoding; progressive ones first keep every DCT
        /// coefficient (`coefficientBytes`, 2 bytes a coefficient).
        case jpeg(progressive: Bool, coefficientBytes: Int)
    }

    /// width x height.
    public var pixels: Int { Self.product(width, height) }

    /// What the decoded form takes (API.md: width x height x bands x bytes per sample),
    /// saturating rather than overflowing for absurd headers.
    public var decodedBytes: Int { Self.product(Self.product(pixels, bands), bytesPerSample) }

    static func product(_ a: Int, _ b: Int) -> Int {
        let (value, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? Int.max : value
    }

    /// Reads the header of `bytes`; throws `.unsupportedFormat` for anything but JPEG, PNG,
    /// WebP and HEVC-coded HEIF, `.codedSizeMismatch` for a frame that is not the size its
    /// header says, `.undecodable` for a header that is truncated or contradicts itself.
    public static func read(_ bytes: [UInt8]) throws(ImagingError) -> ImageHeader {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return try JPEGHeader.read(bytes) }
        if bytes.starts(with: PNGHeader.signature) { return try PNGHeader.read(bytes) }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) {
            return try WebPHeader.read(bytes)
        }
        if bytes.count >= 8, bytes[4..<8].elementsEqual("ftyp".utf8) { return try HEIFHeader.read(bytes) }
        throw .unsupportedFormat
    }
}
