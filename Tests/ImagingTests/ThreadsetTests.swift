import CVips
import CVipsThreadset
import Foundation
import Imaging
import XCTest

/// libvips 8.14.1 (Debian 12's) retires a worker thread after 15 s idle, and a task handed to a
/// thread that is just leaving is lost or written into freed memory (Sources/CVipsThreadset,
/// bench/vips-stress). The fix is this program's own vips_semaphore_down_timeout, which must be
/// the one libvips's threadset calls and must not time out.
final class ThreadsetTests: XCTestCase {
    private typealias DownTimeout = @convention(c) (UnsafeMutablePointer<VipsSemaphore>?, gint64) -> Int32

    func testThisLibvipsNeedsTheFix() {
        _ = Imaging.formats // starts libvips
        XCTAssertEqual(String(cString: vips_version_string()), "8.14.1", "Debian 12's; see threadset_idle.c for other versions")
        XCTAssertEqual(pn_vips_threadset_keeps_idle_threads(), 1)
    }

    /// What libvips's own calls bind to (its PLT resolves the name in the global scope, the
    /// executable first) is this program's function, not libvips's.
    func testLibvipsCallsResolveToTheFix() throws {
        let global = try XCTUnwrap(dlsym(nil, "vips_semaphore_down_timeout"), "not exported by the test executable")
        let library = try XCTUnwrap(dlopen("libvips.so.42", RTLD_LAZY | RTLD_NOLOAD))
        defer { dlclose(library) }
        let own = try XCTUnwrap(dlsym(library, "vips_semaphore_down_timeout"))
        XCTAssertNotEqual(global, own, "libvips's threadset would still time its idle threads out")
    }

    /// The idle wait does not time out: a 1 ms wait returns when the semaphore is upped 300 ms
    /// later, instead of -1 after 1 ms (which would retire the thread).
    func testTheIdleWaitDoesNotTimeOut() throws {
        let downTimeout = unsafeBitCast(try XCTUnwrap(dlsym(nil, "vips_semaphore_down_timeout")), to: DownTimeout.self)
        let semaphore = UnsafeMutablePointer<VipsSemaphore>.allocate(capacity: 1)
        let name = strdup("test")
        vips_semaphore_init(semaphore, 0, name)
        defer {
            vips_semaphore_destroy(semaphore)
            semaphore.deallocate()
            free(name)
        }
        let address = Int(bitPattern: semaphore)
        let upper = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            vips_semaphore_up(UnsafeMutablePointer<VipsSemaphore>(bitPattern: address))
        }
        let started = Date()
        upper.start()
        let result = downTimeout(semaphore, 1_000)
        XCTAssertEqual(result, 0, "-1 is a timeout")
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.2)
    }
}
