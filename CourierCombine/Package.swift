// swift-tools-version: 6.2
// Combine publishers for Courier calls, in a package of their own so that the library's manifest stays
// dependency-free. On Apple platforms they use Combine; on Linux, OpenCombine (a Linux-only dependency).
// Test it with `scripts/test-combine` from the repository root (it also starts the local httpbin).
import PackageDescription

let package = Package(
    name: "CourierCombine",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CourierCombine", targets: ["CourierCombine"])
    ],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
    ],
    targets: [
        .target(
            name: "CourierCombine",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "CourierCombineTests",
            dependencies: [
                "CourierCombine",
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                // DispatchQueue as a scheduler (`receive(on:)`), which Combine has built in.
                .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
