// swift-tools-version: 6.2
// Courier's test tools: executables that the tests and CI run, not products anyone imports. They live in a
// package of their own so that Courier's manifest lists only the library, CourierTesting and their tests.
// scripts/test builds them (and exports COURIER_TOOLS_BIN, the folder of the binaries); scripts/fuzz runs the
// fuzzer. By hand: `swift build --package-path Tests/Tools`.
import PackageDescription

let settings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]
let courier: Target.Dependency = .product(name: "Courier", package: "Courier")

let package = Package(
    name: "CourierTools",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Courier", path: "../..")
    ],
    targets: [
        // Random endpoints and inputs through makeRequest, checked by its own decoders (scripts/fuzz).
        .executableTarget(name: "CourierFuzz", dependencies: [courier], swiftSettings: settings),
        // Makes one call and prints its outcome and the process's peak memory as JSON; the fault integration
        // tests run it as a child process to bound the memory of a call (Tests/CourierTests/Integration).
        .executableTarget(name: "CourierProbe", dependencies: [courier], swiftSettings: settings),
        // Writes disk cache entries in a loop; the cache crash test kills it with SIGKILL mid-write
        // (Tests/CourierTests/Cache/CacheCrashTests.swift).
        .executableTarget(name: "CourierCacheWriter", dependencies: [courier], swiftSettings: settings),
    ],
    swiftLanguageModes: [.v6]
)
