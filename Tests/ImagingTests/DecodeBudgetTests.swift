import Dispatch
import Foundation
@testable import Imaging
import TestSupport
import XCTest

/// The decode budget and the refusals before decoding (issue 43).
final class DecodeBudgetTests: XCTestCase {
    func testReservationsNeverExceedTheCapacity() {
        let budget = DecodeBudget(capacity: 100)
        let running = RunningCount()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            budget.withReservation(index == 0 ? 1_000 : 60) {
                running.enter()
                usleep(20_000)
                running.leave()
            }
        }
        XCTAssertLessThanOrEqual(budget.peakReserved, 100, "a reservation over the capacity is clamped to it and runs alone")
        XCTAssertEqual(running.most, 1, "60 + 60 > 100: one decode at a time")
    }

    func testEstimatesFollowTheFormatsMeasuredCosts() throws {
        // BENCHMARKS.md "Picture memory": a baseline JPEG shrinks while decoding, a
        // progressive one holds its coefficients, libheif holds twice the decoded form.
        let baseline = try ImageHeader.read(try TestPictures.make(4_032, 3_024, as: ".jpg[Q=60]"))
        XCTAssertLessThan(DecodeCost.bytes(baseline), 16_000_000, "a 12 MP photo reserves little, so several decode at once")
        let progressive = try ImageHeader.read(try TestPictures.make(4_032, 3_024, as: ".jpg[Q=60,interlace]"))
        XCTAssertGreaterThan(DecodeCost.bytes(progressive), 12_000_000 * 2)
        // A grid decodes a tile at a time; a single frame whole, libheif's way.
        let grid = try ImageHeader.read(HEIFFiles.grid(try TestPictures.hevcTile.get(), rows: 6, columns: 8, output: (4_032, 3_024)))
        XCTAssertLessThan(DecodeCost.bytes(grid), grid.decodedBytes / 2)
        let single = try ImageHeader.read(HEIFFiles.single(try TestPictures.hevcTile.get()))
        XCTAssertGreaterThan(DecodeCost.bytes(single), 2 * single.decodedBytes)
        let interlaced = try ImageHeader.read(try TestPictures.make(1_000, 1_000, bands: 4, as: ".png[interlace,bitdepth=16]"))
        XCTAssertGreaterThanOrEqual(DecodeCost.bytes(interlaced), 3 * interlaced.decodedBytes / 2)
    }

    func testAGridIsDecodedTileByTileInItsOrder() throws {
        // Two rows of one tile: black above, the zone plate (grey on average) below.
        let file = HEIFFiles.grid([try TestPictures.blackTile.get(), try TestPictures.hevcTile.get()], rows: 2, columns: 1)
        guard case .heifGrid = try ImageHeader.read(file).layout else { return XCTFail("a plain grid is decoded tile by tile") }
        let picture = try Decoded(try Imaging.renditions(of: file, declared: .heif).large)
        XCTAssertEqual([picture.width, picture.height], [400, 400])
        XCTAssertLessThan(try picture.average(band: 0, left: 0, top: 20, width: 400, height: 150), 40, "the first row on top")
        XCTAssertGreaterThan(try picture.average(band: 0, left: 0, top: 230, width: 400, height: 150), 90)
    }

    func testATiledGridIsTurnedAsLibheifWouldTurnIt() throws {
        // The same grid with `irot` 1: a quarter turn anticlockwise puts the top row on the left.
        // libheif itself agrees: the same grid with a clean aperture (the whole image) is not
        // tiled, so libheif decodes it whole and turns it.
        let tiles = [try TestPictures.blackTile.get(), try TestPictures.hevcTile.get()]
        let whole: [UInt8] = [0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 4, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 1]
        for (transformations, tiled) in [([HEIFFiles.rotation(1)], true), ([HEIFFiles.box("clap", whole), HEIFFiles.rotation(1)], false)] {
            let file = HEIFFiles.grid(tiles, rows: 2, columns: 1, transformations: transformations)
            if case .heifGrid = try ImageHeader.read(file).layout { XCTAssertTrue(tiled) } else { XCTAssertFalse(tiled) }
            let picture = try Decoded(try Imaging.renditions(of: file, declared: .heif).large)
            XCTAssertLessThan(try picture.average(band: 0, left: 20, top: 0, width: 150, height: 400), 40, "tiled \(tiled): the first row on the left")
            XCTAssertGreaterThan(try picture.average(band: 0, left: 230, top: 0, width: 150, height: 400), 90, "tiled \(tiled)")
        }
    }

    func testTheDeclaredTypeMustBeTheDetectedOne() throws {
        XCTAssertThrowsError(try Imaging.renditions(of: try fixture("landscape.jpg"), declared: .png)) {
            XCTAssertEqual($0 as? ImagingError, .typeMismatch(declared: .png, detected: .jpeg))
        }
        XCTAssertThrowsError(try Imaging.renditions(of: try fixture("photo.webp"), declared: .heif)) {
            XCTAssertEqual($0 as? ImagingError, .typeMismatch(declared: .heif, detected: .webp))
        }
        XCTAssertEqual(try Imaging.renditions(of: try fixture("iphone.heic"), declared: .heif).source, .heif)
    }

    func testDecodedBytesOverTheBoundAreRefusedBeforeDecoding() throws {
        // 16-bit interlaced RGBA near 40 MP: 317 MB decoded (under 40 MP, over 160 MB).
        let bomb = try TestPictures.make(6_300, 6_300, bands: 4, as: ".png[interlace,bitdepth=16,compression=9]")
        XCTAssertLessThan(bomb.count, 1_000_000)
        let before = peakResidentKiB()
        XCTAssertThrowsError(try Imaging.renditions(of: bomb, declared: .png)) {
            XCTAssertEqual($0 as? ImagingError, .tooManyBytes(6_300 * 6_300 * 8))
        }
        XCTAssertLessThan(peakResidentKiB() - before, 16 * 1024, "nothing was decoded")
    }

    func testAHandMadeGridDecodesAndALyingOneDoesNot() throws {
        let tile = try TestPictures.hevcTile.get()
        // libheif reads the grids HEIFFiles writes: the tests' bombs are real files.
        let renditions = try Imaging.renditions(of: HEIFFiles.grid(tile, rows: 2, columns: 3, output: (1500, 1000)), declared: .heif)
        XCTAssertEqual(try Decoded(renditions.large).width, 400)
        XCTAssertThrowsError(try Imaging.renditions(of: HEIFFiles.grid(tile, rows: 31, columns: 31, claimed: (1000, 1000)))) {
            XCTAssertEqual($0 as? ImagingError, .codedSizeMismatch(width: 1000, height: 1000, codedWidth: 15872, codedHeight: 15872))
        }
    }
}

private final class RunningCount: @unchecked Sendable {
    private let lock = NSLock()
    private var now = 0
    private(set) var most = 0
    func enter() { lock.withLock { now += 1; most = max(most, now) } }
    func leave() { lock.withLock { now -= 1 } }
}
