import CVips
import Foundation
import Imaging
import XCTest

/// The renditions of the fixtures in Tests/Support/fixtures/images (made by make-images.py: each picture
/// is a red half over a blue half, so a test can tell which way up a rendition is).
final class RenditionsTests: XCTestCase {
    func testEachAcceptedFormatGivesTwoUprightSquares() throws {
        for name in ["landscape.jpg", "alpha.png", "photo.webp", "iphone.heic", "upright-gps.jpg"] {
            let renditions = try Imaging.renditions(of: try fixture(name))
            for (bytes, side) in [(renditions.large, 400), (renditions.small, 100)] {
                let picture = try Decoded(bytes)
                XCTAssertEqual(picture.width, side, name)
                XCTAssertEqual(picture.height, side, name)
                XCTAssertEqual(picture.bands, 3, "\(name): 8-bit sRGB without alpha")
                // Red on top, blue below: the sideways phone photo (EXIF Orientation 6) was turned.
                XCTAssertGreaterThan(try picture.red(top: true), 180, name)
                XCTAssertLessThan(try picture.red(top: false), 80, name)
            }
        }
    }

    func testNoMetadataSurvives() throws {
        let source = try fixture("upright-gps.jpg")
        XCTAssertTrue(JPEGMarkers.of(source).contains(0xE1), "the fixture carries EXIF (GPS) and XMP")
        XCTAssertTrue(JPEGMarkers.of(source).contains(0xFE), "the fixture carries a comment")
        let renditions = try Imaging.renditions(of: source)
        for bytes in [renditions.large, renditions.small] {
            // Only the image itself: quantisation and Huffman tables, the frame, the scan. No
            // APPn block (JFIF, EXIF, XMP, ICC, IPTC) and no comment.
            XCTAssertEqual(Set(JPEGMarkers.of(bytes)).subtracting([0xDB, 0xC0, 0xC2, 0xC4, 0xDA, 0xDD]), [])
            XCTAssertNil(bytes.firstRange(of: Array("Exif".utf8)))
            XCTAssertNil(bytes.firstRange(of: Array("PacenoteCam".utf8)))
        }
    }

    func testCMYKAndSixteenBitAreConverted() throws {
        for name in ["cmyk.jpg", "sixteen-bit.png"] {
            let picture = try Decoded(try Imaging.renditions(of: try fixture(name)).large)
            XCTAssertEqual(picture.bands, 3, name)
            XCTAssertEqual(picture.format, VIPS_FORMAT_UCHAR, name)
            XCTAssertGreaterThan(try picture.red(top: true), 150, name)
        }
    }

    func testTransparencyBecomesWhite() throws {
        // alpha.png has a transparent 60 x 60 square at its centre: 80 x 80 in the rendition.
        let picture = try Decoded(try Imaging.renditions(of: try fixture("alpha.png")).large)
        for band: Int32 in 0...2 {
            XCTAssertGreaterThan(try picture.average(band: band, left: 180, top: 180, width: 40, height: 40), 240, "white, not black")
        }
    }

    func testRefusals() throws {
        XCTAssertThrowsError(try Imaging.renditions(of: Array("not an image at all".utf8))) {
            XCTAssertEqual($0 as? ImagingError, .unsupportedFormat)
        }
        XCTAssertThrowsError(try Imaging.renditions(of: [])) { XCTAssertEqual($0 as? ImagingError, .unsupportedFormat) }
        for name in ["animation.gif", "script.svg"] {
            XCTAssertThrowsError(try Imaging.renditions(of: try fixture(name)), name) {
                XCTAssertEqual($0 as? ImagingError, .unsupportedFormat, name)
            }
        }
        XCTAssertThrowsError(try Imaging.renditions(of: try fixture("truncated.jpg"))) {
            XCTAssertEqual($0 as? ImagingError, .undecodable)
        }
    }

    func testADecompressionBombIsRefusedFromItsHeader() throws {
        let bomb = try fixture("bomb.png")
        XCTAssertLessThan(bomb.count, 10_000)
        let before = peakResidentKiB()
        XCTAssertThrowsError(try Imaging.renditions(of: bomb)) {
            XCTAssertEqual($0 as? ImagingError, .tooManyPixels(width: 100_000, height: 100_000))
        }
        // Decoding it would take 30 GB; refusing it takes nothing noticeable.
        XCTAssertLessThan(peakResidentKiB() - before, 16 * 1024)
    }

    func testTheFormatsThisBuildReads() {
        XCTAssertEqual(Imaging.formats, [.jpeg, .png, .webp, .heif], "Debian's libvips reads all four")
    }

    func testConcurrentCallsGiveTheSameBytes() throws {
        let source = try fixture("landscape.jpg")
        let expected = try Imaging.renditions(of: source)
        let results = LockedResults()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            results.append(try? Imaging.renditions(of: source))
        }
        XCTAssertEqual(results.all, Array(repeating: expected, count: 8))
    }
}

private final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Renditions?] = []
    func append(_ value: Renditions?) { lock.withLock { values.append(value) } }
    var all: [Renditions?] { lock.withLock { values } }
}

func fixture(_ name: String) throws -> [UInt8] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Support/fixtures/images/\(name)").standardized
    return Array(try Data(contentsOf: url))
}

/// The process's peak resident set (VmHWM), in KiB.
func peakResidentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// The markers of a JPEG's header segments, up to the first scan.
enum JPEGMarkers {
    static func of(_ bytes: [UInt8]) -> [UInt8] {
        var markers: [UInt8] = []
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            markers.append(marker)
            if marker == 0xDA { break }
            index += 2 + Int(bytes[index + 2]) << 8 + Int(bytes[index + 3])
        }
        return markers
    }
}

/// A decoded rendition, read back with libvips to check its pixels.
struct Decoded {
    let image: UnsafeMutablePointer<VipsImage>
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        guard let image = bytes.withUnsafeBytes({ pn_vips_decode($0.baseAddress, $0.count) }) else {
            throw DecodeFailure()
        }
        self.image = image
    }

    var width: Int { Int(vips_image_get_width(image)) }
    var height: Int { Int(vips_image_get_height(image)) }
    var bands: Int { Int(vips_image_get_bands(image)) }
    var format: VipsBandFormat { vips_image_get_format(image) }

    /// The red band's average over the top or bottom fifth.
    func red(top: Bool) throws -> Double {
        let rows = height / 5
        return try average(band: 0, left: 0, top: top ? 0 : height - rows, width: width, height: rows)
    }

    func average(band: Int32, left: Int, top: Int, width: Int, height: Int) throws -> Double {
        var value = 0.0
        guard pn_vips_area_average(image, band, Int32(left), Int32(top), Int32(width), Int32(height), &value) == 0 else {
            throw DecodeFailure()
        }
        return value
    }
}

struct DecodeFailure: Error {}
