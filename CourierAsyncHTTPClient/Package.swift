// swift-tools-version: 6.2
// The server-side executor for Courier: AsyncHTTPClientExecutor (swift-server/async-http-client, SwiftNIO). It
// re-exports CourierObservability (`.swiftLog(logger)`, `.tracing()`, `.metrics()`), a package without SwiftNIO so
// that apps need none for them. A package of its own so that the library's manifest stays dependency-free.
// Test it with `scripts/test-ahc` from the repository root (it also starts the local httpbin and fault server).
import PackageDescription

let package = Package(
    name: "CourierAsyncHTTPClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CourierAsyncHTTPClient", targets: ["CourierAsyncHTTPClient"])
    ],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(name: "CourierObservability", path: "../CourierObservability"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // SwiftNIO's own modules (types in AsyncHTTPClient's API, errors to classify): already in
        // AsyncHTTPClient's graph, so they add nothing to the build.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.36.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.26.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "CourierAsyncHTTPClient",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierObservability", package: "CourierObservability"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Courier on AsyncHTTPClientExecutor against raw HTTPClient and raw URLSession over loopback nginx
        // (Benchmarks/scripts/bench-ahc builds it in release and runs it).
        .executableTarget(
            name: "CourierAHCBench",
            dependencies: [
                "CourierAsyncHTTPClient",
                .product(name: "Courier", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/CourierAHCBench",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Echo round trips over WebSockets: Courier's connection on AsyncHTTPClientExecutor against the raw SwiftNIO
        // WebSocket client, against an echo server in the process (Benchmarks/scripts/bench-ahc-websockets).
        .executableTarget(
            name: "CourierAHCWebSocketBench",
            dependencies: [
                "CourierAsyncHTTPClient",
                .product(name: "Courier", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Benchmarks/CourierAHCWebSocketBench",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // The package's playground: pages run against real local servers (scripts/test-ahc runs it after the tests).
        .executableTarget(
            name: "CourierAHCPlayground",
            dependencies: [
                "CourierAsyncHTTPClient",
                .product(name: "Courier", package: "Courier"),
            ],
            path: "Playgrounds",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "CourierAsyncHTTPClientTests",
            dependencies: [
                "CourierAsyncHTTPClient",
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
