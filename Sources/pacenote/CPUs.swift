import Foundation

/// How many CPUs this process may run on: its affinity (so `taskset -c 0` counts as one),
/// not the machine's count that Foundation's `activeProcessorCount` answers.
/// Read from /proc/self/status, since glibc's sched_getaffinity is not visible to Swift.
enum CPUs {
    static var usable: Int {
        let fallback = ProcessInfo.processInfo.activeProcessorCount
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else {
            return fallback
        }
        return count(list: line.dropFirst("Cpus_allowed_list:".count)) ?? fallback
    }

    /// Counts a CPU list such as `0`, `0-1` or `0,2-5`.
    static func count(list: Substring) -> Int? {
        var total = 0
        for part in list.split(separator: ",") {
            let bounds = part.trimmingCharacters(in: .whitespaces).split(separator: "-").compactMap { Int($0) }
            switch bounds.count {
            case 1: total += 1
            case 2 where bounds[1] >= bounds[0]: total += bounds[1] - bounds[0] + 1
            default: return nil
            }
        }
        return total > 0 ? total : nil
    }
}
