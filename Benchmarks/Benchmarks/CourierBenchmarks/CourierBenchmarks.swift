import Benchmark

/// Every benchmark comes in a pair named `<group>.<variant>`: the `baseline` variant is the code Courier
/// replaces, measured in the same run; `Benchmarks/scripts/bench_report.py` turns each pair into a ratio.
///
/// End-to-end calls are not here: they run in `CourierE2E`, which alternates Courier and raw `URLSession` in
/// rounds within one process (see `Sources/CourierE2E/EndToEnd.swift`).
let benchmarks: @Sendable () -> Void = {
    registerBuildBenchmarks()
    registerDecodeBenchmarks()
    registerCacheBenchmarks()
    registerGovernorBenchmarks()
}
