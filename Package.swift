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
        .target(name: "Courier", swiftSettings: strictSettings),
        // Ships the fault server that the executor conformance suite talks to (ExecutorConformance.Servers
        // .startingFaultServer(httpbin:)); scripts/faultserver.sh runs the same copy.
        .target(
            name: "CourierTesting",
            dependencies: ["Courier"],
            resources: [.copy("Resources/faultserver.py")],
            swiftSettings: strictSettings
        ),
        // Random endpoints and inputs through makeRequest, checked by its own decoders (scripts/fuzz).
        .executableTarget(name: "CourierFuzz", dependencies: ["Courier"], swiftSettings: strictSettings),
        .executableTarget(
            name: "Playground",
            dependencies: ["Courier", "CourierTesting"],
            path: "Playgrounds",
            swiftSettings: strictSettings
        ),
        // Makes one call and prints its outcome and the process's peak memory as JSON; the fault integration
        // tests run it as a child process to bound the memory of a call (Tests/CourierTests/Integration).
        .executableTarget(name: "CourierProbe", dependencies: ["Courier"], swiftSettings: strictSettings),
        // Writes disk cache entries in a loop; the cache crash test kills it with SIGKILL mid-write
        // (Tests/CourierTests/Cache/CacheCrashTests.swift).
        .executableTarget(name: "CourierCacheWriter", dependencies: ["Courier"], swiftSettings: strictSettings),
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
