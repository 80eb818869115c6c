// swift-tools-version: 6.2
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
    ],
    targets: [
        // Engines/README.md: why each engine that replaces a Foundation piece exists (the measured reason).
        .target(name: "Courier", exclude: ["Engines/README.md"], swiftSettings: strictSettings),
        // Ships the fault server that the executor conformance suite talks to (ExecutorConformance.Servers
        // .startingFaultServer(httpbin:)); scripts/servers.sh runs the same copy.
        .target(
            name: "CourierTesting",
            dependencies: ["Courier"],
            resources: [.copy("Resources/faultserver.py")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "Playground",
            dependencies: ["Courier", "CourierTesting"],
            path: "Playgrounds",
            // The description the Bin book was generated from (scripts/test-openapi regenerates it and compares).
            exclude: ["Bin/bin.yaml"],
            swiftSettings: strictSettings
        ),
        // The test tools (the fuzzer, the memory probe, the cache writer) are a package of their own: Tests/Tools.
        .testTarget(
            name: "CourierTests",
            dependencies: ["Courier", "CourierTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierTestingTests",
            dependencies: ["Courier", "CourierTesting"],
            swiftSettings: strictSettings
        ),
        // The three ways an address book of static wrappers compiles (see the DocC article
        // Sources/Courier/Courier.docc/Swift6AndStaticProperties.md): a @MainActor namespace in Swift 6 mode,
        // default MainActor isolation, Swift 5 mode.
        .testTarget(name: "MainActorBookTests", dependencies: ["Courier"]),
        .testTarget(
            name: "DefaultIsolationBookTests",
            dependencies: ["Courier"],
            swiftSettings: [.defaultIsolation(MainActor.self)]
        ),
        .testTarget(
            name: "Swift5BookTests",
            dependencies: ["Courier"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
