// swift-tools-version: 6.1
// Benchmarks for Courier, in a package of their own so that the library's manifest stays dependency-free.
// Run them with `scripts/bench` from the repository root (it also starts the local nginx they need).
import PackageDescription

let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The address book, fixtures, hand-written baselines and stub executor the benchmarks share.
        .target(
            name: "CourierBenchmarkSupport",
            dependencies: [.product(name: "Courier", package: "Courier")]
        ),
        // The benchmarks proper, run by `swift package benchmark`.
        .executableTarget(
            name: "CourierBenchmarks",
            dependencies: [
                "CourierBenchmarkSupport",
                .product(name: "Courier", package: "Courier"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CourierBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // One side of one benchmark in a loop, for valgrind --tool=callgrind and other profilers.
        .executableTarget(
            name: "CourierProfile",
            dependencies: ["CourierBenchmarkSupport", .product(name: "Courier", package: "Courier")]
        ),
    ]
)
