import Benchmark

/// Every benchmark comes in a pair (or a trio) named `<group>.<variant>`: the `baseline` variant is the
/// code Courier replaces, measured in the same run; `scripts/bench_report.py` turns each pair into a ratio.
let benchmarks: @Sendable () -> Void = {
    registerBuildBenchmarks()
    registerDecodeBenchmarks()
    registerEndToEndBenchmarks()
}
