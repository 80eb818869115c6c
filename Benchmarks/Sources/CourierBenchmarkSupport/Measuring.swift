import Foundation

/// What the large-transfer tools (`CourierTransfers`, `CourierUploads`) measure with: the median of per-round
/// ratios, durations in seconds, and this process's resident memory from `/proc/self/status`.
package enum Measuring {
    /// The median of `values`; NaN when there are none.
    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// `duration` in seconds.
    package static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `VmRSS` or `VmHWM` from /proc/self/status, in bytes; `nil` where there is no such file (not Linux).
    package static func memory(_ key: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
            let fields = line.dropFirst(key.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }

    /// Resets the peak-RSS mark (Linux: writing 5 to clear_refs), so `VmHWM` measures from now.
    package static func resetPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }
}
