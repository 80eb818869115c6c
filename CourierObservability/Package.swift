// swift-tools-version: 6.2
// Observability for Courier calls on the server and app conventions: swift-metrics with the OpenTelemetry HTTP
// client names (`.metrics()`), swift-log (`.swiftLog(logger)`) and swift-distributed-tracing (`.tracing()`),
// built on the core's call timeline. A package of its own so that the library's manifest stays dependency-free,
// and without SwiftNIO, so that an iOS app can use it. Test it with `scripts/test-observability` from the
// repository root (it also starts the local httpbin and fault server).
import PackageDescription

let package = Package(
    name: "CourierObservability",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CourierObservability", targets: ["CourierObservability"])
    ],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .target(
            name: "CourierObservability",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // One stubbed call in a loop, with and without `.metrics()`, for `scripts/instructions --metrics`.
        .executableTarget(
            name: "CourierObservabilityProfile",
            dependencies: [
                "CourierObservability",
                .product(name: "Courier", package: "Courier"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "CourierObservabilityTests",
            dependencies: [
                "CourierObservability",
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
