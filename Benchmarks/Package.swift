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
        .executableTarget(
            name: "CourierBenchmarks",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CourierBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        )
    ]
)
