import CVips
import Synchronization

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

/// The encodings a profile picture may come in, by the libvips loader that reads each. Every
/// other loader is blocked at start (`pn_vips_start`), so nothing else is ever decoded.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, heif

    init?(loader: String) {
        switch loader {
        case "VipsForeignLoadJpegBuffer": self = .jpeg
        case "VipsForeignLoadPngBuffer": self = .png
        case "VipsForeignLoadWebpBuffer": self = .webp
        case "VipsForeignLoadHeifBuffer": self = .heif
        default: return nil
        }
    }

    /// The media types an upload of this format is sent with (`image/heif` beside `image/heic`:
    /// Android names HEIF files so).
    public var mediaTypes: [String] {
        switch self {
        case .jpeg: ["image/jpeg"]
        case .png: ["image/png"]
        case .webp: ["image/webp"]
        case .heif: ["image/heic", "image/heif"]
        }
    }
}

/// Why an upload is not a picture. Every case is the client's: 400 `invalid_image`.
public enum ImagingError: Error, Sendable, Equatable {
    /// Not an encoding the server reads (text, GIF, SVG, PDF, ...).
    case unsupportedFormat
    /// The header declares more pixels than `Imaging.maxPixels`; nothing was decoded.
    case tooManyPixels(width: Int, height: Int)
    /// Its header reads but its pixels do not (truncated, corrupt).
    case undecodable
}

/// Profile pictures with libvips: the header is read first and checked, then the image is
/// decoded (shrinking while decoding where the format allows), turned upright by its EXIF
/// orientation, cropped to a centred square, converted to 8-bit sRGB and written as JPEG
/// with every metadata block stripped.
///
/// Thread-safe; each call decodes on the calling thread (libvips adds no threads of its own
/// beyond one worker a pipeline), so the caller's pool decides how many run at once.
public enum Imaging {
    /// Width x height a header may declare at most: 40 megapixels, above every phone camera's
    /// default (12 to 24 MP) and far below what would exhaust memory while decoding.
    public static let maxPixels = 40_000_000
    /// The largest encoded picture taken (API.md: an upload's 10 MiB; the import's files too).
    public static let maxEncodedBytes = 10 * 1024 * 1024
    static let quality: Int32 = 85

    /// The formats this build decodes: those whose loader the linked libvips has (Debian's reads
    /// all four; a libvips built without libheif would not read HEIC).
    public static var formats: [ImageFormat] {
        guard started else { return [] }
        return ImageFormat.allCases.filter { format in
            let name = switch format {
            case .jpeg: "VipsForeignLoadJpegBuffer"
            case .png: "VipsForeignLoadPngBuffer"
            case .webp: "VipsForeignLoadWebpBuffer"
            case .heif: "VipsForeignLoadHeifBuffer"
            }
            return g_type_from_name(name) != 0
        }
    }

    /// libvips started once per process, before the first image (a global `let` is
    /// initialised once, thread-safely, on first use).
    static let started: Bool = pn_vips_start() == 0

    /// What the bytes are and how large they say they are, from the header alone.
    public static func probe(_ bytes: [UInt8]) throws(ImagingError) -> (format: ImageFormat, width: Int, height: Int) {
        guard started, !bytes.isEmpty else { throw .unsupportedFormat }
        let found: (ImageFormat, Int, Int)? = bytes.withUnsafeBytes { buffer in
            guard let loader = pn_vips_loader(buffer.baseAddress, buffer.count),
                  let format = ImageFormat(loader: String(cString: loader)),
                  let header = pn_vips_open_header(buffer.baseAddress, buffer.count) else { return nil }
            defer { pn_vips_unref(header) }
            return (format, Int(vips_image_get_width(header)), Int(vips_image_get_height(header)))
        }
        guard let (format, width, height) = found else {
            vips_error_clear()
            throw .unsupportedFormat
        }
        return (format, width, height)
    }

    /// The two renditions of an uploaded picture.
    public static func renditions(of bytes: [UInt8]) throws(ImagingError) -> Renditions {
        let (format, width, height) = try probe(bytes)
        // Refused from the header: a small file can declare gigapixels (a decompression bomb).
        guard width > 0, height > 0, width * height <= maxPixels else { throw .tooManyPixels(width: width, height: height) }
        let result: ([UInt8], [UInt8])? = bytes.withUnsafeBytes { buffer in
            var decoded: UnsafeMutablePointer<VipsImage>?
            guard pn_vips_square_thumbnail(buffer.baseAddress, buffer.count, Int32(Renditions.largeSide), &decoded) == 0,
                  let decoded else { return nil }
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
        return Renditions(large: large, small: small, source: format)
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
