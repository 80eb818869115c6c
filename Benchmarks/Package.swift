// swift-tools-version: 6.2
// Benchmarks for Courier, in a package of their own so that the library's manifest stays dependency-free.
// Run them with `scripts/bench` from the repository root (it also starts the local nginx they need).
import PackageDescription

let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Courier", path: ".."),
        // The server-side executor, for the download benchmark's AsyncHTTPClient sides (builds AsyncHTTPClient).
        .package(name: "CourierAsyncHTTPClient", path: "../CourierAsyncHTTPClient"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
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
        // One side of one build or decode benchmark in a loop, for valgrind --tool=callgrind and other profilers.
        .executableTarget(
            name: "CourierProfile",
            dependencies: ["CourierBenchmarkSupport", .product(name: "Courier", package: "Courier")]
        ),
        // End to end against nginx: Courier and raw URLSession alternated in rounds in one process, outside the
        // benchmark harness (whose malloc interposer would tax every allocation); `scripts/bench e2e` runs it.
        .executableTarget(
            name: "CourierE2E",
            dependencies: ["CourierBenchmarkSupport", .product(name: "Courier", package: "Courier")]
        ),
        // A large download from nginx: Courier on URLSessionExecutor and on AsyncHTTPClientExecutor, raw URLSession,
        // raw AsyncHTTPClient and curl, in rounds in one process, with each download's resident-memory growth;
        // `scripts/bench transfers` runs it.
        .executableTarget(
            name: "CourierTransfers",
            dependencies: [
                "CourierBenchmarkSupport",
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierAsyncHTTPClient", package: "CourierAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // A large multipart upload to the upload sink: Courier, raw URLSession and curl alternated in rounds in one
        // process, with each upload's resident-memory growth; `scripts/bench uploads` runs it.
        .executableTarget(
            name: "CourierUploads",
            dependencies: ["CourierBenchmarkSupport", .product(name: "Courier", package: "Courier")]
        ),
    ]
)
