import CVips

/// The two JPEGs a profile picture is kept as (API.md "Profile pictures"): squares, upright,
/// with no metadata block at all.
public struct Renditions: Sendable, Equatable {
    /// 400 x 400 (`avatarUrl`).
    public let large: [UInt8]
    /// 100 x 100 (`avatarThumbnailUrl`).
    public let small: [UInt8]
    /// What the upload was.
    public let source: ImageFormat

    public static let largeSide = 400
    public static let smallSide = 100
}

/// Profile pictures with libvips: the headers are read by `ImageHeader` and checked (format,
/// coded sizes, pixels, decoded bytes), then the image is decoded once the `DecodeBudget` has
/// room (shrinking while decoding where the format allows; HEIC grids a tile at a time),
/// turned upright by its EXIF orientation, cropped to a centred square, converted to 8-bit
/// sRGB and written as JPEG with every metadata block stripped.
///
/// Thread-safe; each call decodes on the calling thread (libvips adds no threads of its own
/// beyond one worker a pipeline): the caller's pool decides how many run at once, the budget
/// how much memory they take together.
public enum Imaging {
    /// Width x height a header may declare at most: 40 megapixels, above every phone camera's
    /// default (12 to 24 MP) and far below what would exhaust memory while decoding.
    public static let maxPixels = 40_000_000
    /// The most a decoded form may take (API.md): width x height x bands x bytes per sample,
    /// 16-bit and interlaced PNGs counted as what they decode to. 40 MP of 8-bit RGBA.
    public static let maxDecodedBytes = 160_000_000
    /// `DecodeBudget`'s default: one decode of the largest admissible picture at a time, or
    /// several smaller ones (docs/deployment.md "Profile pictures" sizes it).
    public static let defaultBudgetBytes = 160 * 1024 * 1024
    /// The largest encoded picture taken (API.md: an upload's 10 MiB; the import's files too).
    public static let maxEncodedBytes = 10 * 1024 * 1024
    static let quality: Int32 = 85

    /// The formats this build decodes: those whose loader the linked libvips has (Debian's reads
    /// all four; a libvips built without libheif would not read HEIC).
    public static var formats: [ImageFormat] {
        guard started else { return [] }
        return ImageFormat.allCases.filter { g_type_from_name($0.loader) != 0 }
    }

    /// libvips started once per process, before the first image (a global `let` is
    /// initialised once, thread-safely, on first use).
    static let started: Bool = pn_vips_start() == 0

    /// What the bytes are and what they decode to, from their headers alone (`ImageHeader`),
    /// with libvips agreeing on the format; nothing is decoded.
    public static func probe(_ bytes: [UInt8]) throws(ImagingError) -> ImageHeader {
        guard started, !bytes.isEmpty else { throw .unsupportedFormat }
        let header = try ImageHeader.read(bytes)
        // The loader libvips would pick must be the one for the format found: the blocked
        // loaders aside, libvips sniffs the same magic numbers, so this only fails for a file
        // made to look like two things.
        let loader: String? = bytes.withUnsafeBytes { buffer in
            pn_vips_loader(buffer.baseAddress, buffer.count).map { String(cString: $0) }
        }
        guard let loader, ImageFormat(loader: loader) == header.format else {
            vips_error_clear()
            throw .unsupportedFormat
        }
        return header
    }

    /// The two renditions of an uploaded picture. `declared` is the format its `Content-Type`
    /// names (nil where there is none, as for the Parse import's files): it must be the one
    /// detected. `budget` is the memory the decode waits for (`DecodeBudget`).
    public static func renditions(of bytes: [UInt8], declared: ImageFormat? = nil,
                                  budget: DecodeBudget = Imaging.budget) throws(ImagingError) -> Renditions {
        let header = try probe(bytes)
        if let declared, declared != header.format { throw .typeMismatch(declared: declared, detected: header.format) }
        // Refused from the headers: a small file can declare gigapixels (a decompression bomb).
        guard header.pixels <= maxPixels else { throw .tooManyPixels(width: header.width, height: header.height) }
        guard header.decodedBytes <= maxDecodedBytes else { throw .tooManyBytes(header.decodedBytes) }
        return try budget.withReservation(DecodeCost.bytes(header)) { () throws(ImagingError) -> Renditions in
            try decode(bytes, header)
        }
    }

    /// The process's decode budget, for those that pass none (the Parse import, tests); the
    /// server makes its own from `serve --picture-memory-mb`.
    public static let budget = DecodeBudget(capacity: defaultBudgetBytes)

    private static func decode(_ bytes: [UInt8], _ header: ImageHeader) throws(ImagingError) -> Renditions {
        let result: ([UInt8], [UInt8])? = bytes.withUnsafeBytes { buffer in
            // libvips reads the header again: it must say no more than ours (an HEIF's clean
            // aperture or rotation may make it smaller or turn it; never larger).
            guard let lazy = pn_vips_open_header(buffer.baseAddress, buffer.count) else { return nil }
            let vipsPixels = Int(vips_image_get_width(lazy)) * Int(vips_image_get_height(lazy))
            pn_vips_unref(lazy)
            guard vipsPixels <= header.pixels else { return nil }
            var decoded: UnsafeMutablePointer<VipsImage>?
            if case .heifGrid = header.layout, let grid = HEIFGrid(bytes) {
                guard let joined = tiled(grid) else { return nil }
                defer { pn_vips_unref(joined) }
                guard pn_vips_square_thumbnail_image(joined, Int32(Renditions.largeSide), &decoded) == 0 else { return nil }
            } else {
                guard pn_vips_square_thumbnail(buffer.baseAddress, buffer.count, Int32(Renditions.largeSide), &decoded) == 0 else {
                    return nil
                }
            }
            guard let decoded else { return nil }
            defer { pn_vips_unref(decoded) }
            // Decode once into memory: both renditions are made from these 400 x 400 pixels, and
            // a decoding error surfaces here rather than half way through a JPEG.
            guard let large = displayable(decoded), let pixels = copyToMemory(large) else { return nil }
            defer { pn_vips_unref(pixels) }
            var small: UnsafeMutablePointer<VipsImage>?
            guard pn_vips_square_thumbnail_image(pixels, Int32(Renditions.smallSide), &small) == 0, let small else { return nil }
            defer { pn_vips_unref(small) }
            guard let largeJPEG = jpeg(pixels), let smallJPEG = jpeg(small) else { return nil }
            return (largeJPEG, smallJPEG)
        }
        guard let (large, small) = result else {
            vips_error_clear()
            throw .undecodable
        }
        return Renditions(large: large, small: small, source: header.format)
    }

    /// An HEIC grid decoded a tile at a time, each shrunk at once, joined, cropped to the grid's
    /// size and turned as its `irot` and `imir` say (`HEIFGrid`).
    private static func tiled(_ grid: HEIFGrid) -> UnsafeMutablePointer<VipsImage>? {
        let shrink = HEIFGrid.shrink(width: grid.width, height: grid.height, tileWidth: grid.tileWidth,
                                     tileHeight: grid.tileHeight, side: Renditions.largeSide)
        var tiles: [UnsafeMutablePointer<VipsImage>?] = []
        defer { for tile in tiles { pn_vips_unref(tile) } }
        for index in 0..<grid.tileCount {
            guard let file = try? grid.tileFile(index),
                  let tile = file.withUnsafeBytes({ pn_vips_heif_tile($0.baseAddress, $0.count, Int32(shrink)) }) else { return nil }
            tiles.append(tile)
        }
        return pn_vips_join_tiles(&tiles, Int32(tiles.count), Int32(grid.columns), Int32(grid.width / shrink),
                                  Int32(grid.height / shrink), Int32(grid.quarterTurns), Int32(grid.mirror))
    }

    /// 8-bit sRGB without alpha (CMYK, 16-bit and grey inputs converted; transparency over
    /// white), as JPEG needs. Consumes nothing: the caller still owns `image`.
    private static func displayable(_ image: UnsafeMutablePointer<VipsImage>) -> UnsafeMutablePointer<VipsImage>? {
        var srgb: UnsafeMutablePointer<VipsImage>?
        guard pn_vips_to_srgb(image, &srgb) == 0, var current = srgb else { return nil }
        if vips_image_hasalpha(current) != 0 {
            var flat: UnsafeMutablePointer<VipsImage>?
            let ok = pn_vips_flatten_white(current, &flat) == 0
            pn_vips_unref(current)
            guard ok, let flat else { return nil }
            current = flat
        }
        if vips_image_get_format(current) != VIPS_FORMAT_UCHAR {
            var cast: UnsafeMutablePointer<VipsImage>?
            let ok = pn_vips_cast_uchar(current, &cast) == 0
            pn_vips_unref(current)
            guard ok, let cast else { return nil }
            current = cast
        }
        return current
    }

    /// Runs the pipeline into a memory image (consuming `image`).
    private static func copyToMemory(_ image: UnsafeMutablePointer<VipsImage>) -> UnsafeMutablePointer<VipsImage>? {
        defer { pn_vips_unref(image) }
        return vips_image_copy_memory(image)
    }

    private static func jpeg(_ image: UnsafeMutablePointer<VipsImage>) -> [UInt8]? {
        var output: UnsafeMutableRawPointer?
        var length = 0
        guard pn_vips_jpeg(image, quality, &output, &length) == 0, let output else { return nil }
        defer { g_free(output) }
        return Array(UnsafeRawBufferPointer(start: output, count: length))
    }
}
