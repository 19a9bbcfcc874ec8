import Dispatch
import XCTest
@testable import Telemetry

final class MetricsTests: XCTestCase {
    func testCounterGetOrCreateAndRender() {
        let registry = MetricsRegistry()
        let a = registry.counter("pacenote_http_requests_total", help: "Requests.", labels: [("route", "/v1/x"), ("status", "200")])
        a.increment()
        registry.counter("pacenote_http_requests_total", help: "Requests.", labels: [("route", "/v1/x"), ("status", "200")]).increment(by: 2)
        registry.counter("pacenote_http_requests_total", help: "Requests.", labels: [("route", "say \"hi\"\\\n"), ("status", "500")]).increment()
        XCTAssertEqual(a.value, 3)
        let text = registry.renderPrometheus()
        XCTAssertEqual(text.components(separatedBy: "# HELP pacenote_http_requests_total").count, 2, "HELP once per family")
        XCTAssertTrue(text.contains("# TYPE pacenote_http_requests_total counter\n"))
        XCTAssertTrue(text.contains(#"pacenote_http_requests_total{route="/v1/x",status="200"} 3"#))
        XCTAssertTrue(text.contains(#"pacenote_http_requests_total{route="say \"hi\"\\\n",status="500"} 1"#))
    }

    func testHistogramIsCumulative() {
        let registry = MetricsRegistry()
        let h = registry.histogram("latency_seconds", help: "Latency.", labels: [("route", "/a")], buckets: [0.1, 1])
        h.observe(0.05)
        h.observe(0.1)
        h.observe(0.5)
        h.observe(7)
        let text = registry.renderPrometheus()
        XCTAssertTrue(text.contains("# TYPE latency_seconds histogram\n"))
        XCTAssertTrue(text.contains(#"latency_seconds_bucket{route="/a",le="0.1"} 2"#))
        XCTAssertTrue(text.contains(#"latency_seconds_bucket{route="/a",le="1"} 3"#))
        XCTAssertTrue(text.contains(#"latency_seconds_bucket{route="/a",le="+Inf"} 4"#))
        XCTAssertTrue(text.contains(#"latency_seconds_sum{route="/a"} 7.65"#))
        XCTAssertTrue(text.contains(#"latency_seconds_count{route="/a"} 4"#))
    }

    func testGaugeSampledAtRenderAndFamiliesSorted() {
        let registry = MetricsRegistry()
        let box = Counter()
        registry.gauge("zeta_pool_size", help: "Pool.") { Double(box.value) }
        registry.counter("alpha_total", help: "A.").increment()
        box.increment(by: 5)
        let text = registry.renderPrometheus()
        XCTAssertTrue(text.contains("# TYPE zeta_pool_size gauge\nzeta_pool_size 5\n"))
        let alpha = text.range(of: "alpha_total")?.lowerBound
        let zeta = text.range(of: "zeta_pool_size")?.lowerBound
        XCTAssertNotNil(alpha)
        XCTAssertNotNil(zeta)
        if let alpha, let zeta { XCTAssertLessThan(alpha, zeta) }
        XCTAssertEqual(text, registry.renderPrometheus(), "stable output")
    }

    func testConcurrentIncrements() {
        let registry = MetricsRegistry()
        let c = registry.counter("c_total", help: "C.")
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1000 { c.increment() }
        }
        XCTAssertEqual(c.value, 8000)
    }
}
