import Synchronization

/// A monotonically increasing count. Lock-free; safe from any thread.
public final class Counter: Sendable {
    let atomic = Atomic<Int>(0)

    init() {}

    /// Adds `by` (which should not be negative).
    public func increment(by: Int = 1) {
        atomic.wrappingAdd(by, ordering: .relaxed)
    }

    /// The current count.
    public var value: Int { atomic.load(ordering: .relaxed) }
}

/// Observations sorted into cumulative buckets, Prometheus style.
public final class Histogram: Sendable {
    /// Seconds, from 1 ms to 10 s; suits HTTP request latency.
    public static let defaultLatencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    let upperBounds: [Double]
    struct State {
        var counts: [Int]  // per bucket, not cumulative; last slot is +Inf
        var sum: Double = 0
        var count: Int = 0
    }
    let state: Mutex<State>

    init(buckets: [Double]) {
        upperBounds = buckets.filter { $0.isFinite }.sorted()
        state = Mutex(State(counts: Array(repeating: 0, count: upperBounds.count + 1)))
    }

    /// Records one observation.
    public func observe(_ value: Double) {
        // First bucket whose upper bound is >= value (Prometheus buckets are "less or equal").
        var index = upperBounds.count
        for (i, bound) in upperBounds.enumerated() where value <= bound {
            index = i
            break
        }
        state.withLock {
            $0.counts[index] += 1
            $0.sum += value
            $0.count += 1
        }
    }

    /// Records a duration, in seconds.
    public func observe(_ duration: Duration) {
        observe(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    func snapshot() -> State { state.withLock { $0 } }
}

/// Holds every metric of the process and renders them in Prometheus text format 0.0.4.
///
/// Registration (`counter`, `histogram`, `gauge`) is get-or-create by name and labels, so it is
/// cheap to call again but best done once at startup; the returned metrics are lock-free or
/// briefly locked on the hot path.
public final class MetricsRegistry: Sendable {
    enum Kind: String { case counter, histogram, gauge }

    struct Family {
        var kind: Kind
        var help: String
        var counters: [LabelKey: Counter] = [:]
        var histograms: [LabelKey: Histogram] = [:]
        var gauges: [LabelKey: @Sendable () -> Double] = [:]
    }

    /// Labels in the order given; part of a metric's identity.
    struct LabelKey: Hashable {
        var pairs: [String]  // flattened name, value, name, value...
        init(_ labels: [(String, String)]) { pairs = labels.flatMap { [$0.0, $0.1] } }
        var labels: [(String, String)] {
            stride(from: 0, to: pairs.count, by: 2).map { (pairs[$0], pairs[$0 + 1]) }
        }
    }

    let families = Mutex<[String: Family]>([:])

    public init() {}

    /// The counter `name{labels}`, created on first use.
    public func counter(_ name: String, help: String, labels: [(String, String)] = []) -> Counter {
        let key = LabelKey(labels)
        return families.withLock { families in
            var family = families[name] ?? Family(kind: .counter, help: help)
            if let existing = family.counters[key] { return existing }
            let counter = Counter()
            family.counters[key] = counter
            families[name] = family
            return counter
        }
    }

    /// The histogram `name{labels}`, created on first use (later `buckets` are ignored).
    public func histogram(
        _ name: String, help: String, labels: [(String, String)] = [],
        buckets: [Double] = Histogram.defaultLatencyBuckets
    ) -> Histogram {
        let key = LabelKey(labels)
        return families.withLock { families in
            var family = families[name] ?? Family(kind: .histogram, help: help)
            if let existing = family.histograms[key] { return existing }
            let histogram = Histogram(buckets: buckets)
            family.histograms[key] = histogram
            families[name] = family
            return histogram
        }
    }

    /// A gauge whose value `read` returns at render time. `read` runs under the registry's lock:
    /// keep it quick and never register metrics from inside it.
    public func gauge(_ name: String, help: String, labels: [(String, String)] = [], read: @escaping @Sendable () -> Double) {
        let key = LabelKey(labels)
        families.withLock { families in
            var family = families[name] ?? Family(kind: .gauge, help: help)
            family.gauges[key] = read
            families[name] = family
        }
    }

    /// The whole registry in Prometheus text exposition format 0.0.4: families sorted by name,
    /// series by labels, HELP and TYPE once per family.
    public func renderPrometheus() -> String {
        var out = ""
        families.withLock { families in
            for name in families.keys.sorted() {
                guard let family = families[name] else { continue }
                out += "# HELP \(name) \(escapeHelp(family.help))\n"
                out += "# TYPE \(name) \(family.kind.rawValue)\n"
                switch family.kind {
                case .counter:
                    for (key, counter) in family.counters.sorted(by: { $0.key.pairs.lexicographicallyPrecedes($1.key.pairs) }) {
                        out += "\(name)\(renderLabels(key.labels)) \(counter.value)\n"
                    }
                case .gauge:
                    for (key, read) in family.gauges.sorted(by: { $0.key.pairs.lexicographicallyPrecedes($1.key.pairs) }) {
                        out += "\(name)\(renderLabels(key.labels)) \(formatNumber(read()))\n"
                    }
                case .histogram:
                    for (key, histogram) in family.histograms.sorted(by: { $0.key.pairs.lexicographicallyPrecedes($1.key.pairs) }) {
                        let s = histogram.snapshot()
                        var cumulative = 0
                        for (i, bound) in histogram.upperBounds.enumerated() {
                            cumulative += s.counts[i]
                            out += "\(name)_bucket\(renderLabels(key.labels + [("le", formatNumber(bound))])) \(cumulative)\n"
                        }
                        out += "\(name)_bucket\(renderLabels(key.labels + [("le", "+Inf")])) \(s.count)\n"
                        out += "\(name)_sum\(renderLabels(key.labels)) \(formatNumber(s.sum))\n"
                        out += "\(name)_count\(renderLabels(key.labels)) \(s.count)\n"
                    }
                }
            }
        }
        return out
    }
}

func renderLabels(_ labels: [(String, String)]) -> String {
    if labels.isEmpty { return "" }
    return "{" + labels.map { "\($0.0)=\"\(escapeLabelValue($0.1))\"" }.joined(separator: ",") + "}"
}

/// Label values escape backslash, double quote and newline (exposition format 0.0.4).
func escapeLabelValue(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s.unicodeScalars {
        switch c {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        default: out.unicodeScalars.append(c)
        }
    }
    return out
}

/// HELP text escapes backslash and newline.
func escapeHelp(_ s: String) -> String {
    s.replacingOccurrences("\\", "\\\\").replacingOccurrences("\n", "\\n")
}

extension String {
    fileprivate func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}

func formatNumber(_ d: Double) -> String {
    if d.isNaN { return "NaN" }
    if d.isInfinite { return d > 0 ? "+Inf" : "-Inf" }
    if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
    return String(d)
}
