import CVips
import Imaging
import TestSupport

/// Pictures the tests make with libvips (`pn_vips_test_picture`), and HEIC files built from
/// one small frame libheif codes (`HEIFFiles`).
enum TestPictures {
    static func make(_ width: Int, _ height: Int, bands: Int = 3, detailed: Bool = false, as suffix: String) throws -> [UInt8] {
        _ = Imaging.formats   // starts libvips
        var output: UnsafeMutableRawPointer?
        var length = 0
        guard pn_vips_test_picture(Int32(width), Int32(height), Int32(bands), detailed ? 1 : 0, suffix, &output, &length) == 0,
              let output else { throw EncodeFailure(suffix: suffix) }
        defer { g_free(output) }
        return Array(UnsafeRawBufferPointer(start: output, count: length))
    }

    /// A 512 x 512 HEVC tile (x265 through libheif), made once.
    static let hevcTile: Result<HEIFFiles.CodedImage, EncodeFailure> = coded(512, 512, "hevc")
    /// A 512 x 512 AV1 tile (aom), made once.
    static let av1Tile: Result<HEIFFiles.CodedImage, EncodeFailure> = coded(512, 512, "av1")

    /// A black 512 x 512 HEVC tile, made once.
    static let blackTile: Result<HEIFFiles.CodedImage, EncodeFailure> = coded(512, 512, "hevc", detailed: false)

    static func coded(_ width: Int, _ height: Int, _ compression: String, detailed: Bool = true) -> Result<HEIFFiles.CodedImage, EncodeFailure> {
        let suffix = ".heic[compression=\(compression),Q=30,effort=9]"
        guard let file = try? make(width, height, detailed: detailed, as: suffix), let image = HEIFFiles.codedImage(of: file) else {
            return .failure(EncodeFailure(suffix: suffix))
        }
        return .success(image)
    }
}

struct EncodeFailure: Error { let suffix: String }
