// swift-tools-version: 6.2
// CourierOpenAPI: imports an OpenAPI (3.0, 3.1 or Swagger 2.0) description into an editable Courier address
// book, checks a book for drift against the description, and validates live traffic against it (a plugin).
// A package of its own so that the library's manifest stays dependency-free.
// Test it with `scripts/test-openapi` from the repository root.
import PackageDescription

let package = Package(
    name: "CourierOpenAPI",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .executable(name: "courier-openapi", targets: ["courier-openapi"]),
        .plugin(name: "CourierOpenAPICommand", targets: ["CourierOpenAPICommand"]),
        .plugin(name: "CourierOpenAPICheck", targets: ["CourierOpenAPICheck"]),
    ],
    dependencies: [
        .package(name: "Courier", path: ".."),
        // Parses and validates 3.0 / 3.1 documents; its loading of external references is not used.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0", traits: []),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "CourierOpenAPI",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "courier-openapi",
            dependencies: [
                "CourierOpenAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // `swift package courier-openapi generate …` from a package that depends on this one (no network, no build
        // plugin: the command runs when asked, and the files it writes are committed).
        .plugin(
            name: "CourierOpenAPICommand",
            capability: .command(
                intent: .custom(
                    verb: "courier-openapi",
                    description: "Generates an address book from an OpenAPI description, or checks a book against it."),
                permissions: [
                    .writeToPackageDirectory(reason: "To write the generated address book into the package's sources.")
                ]
            ),
            dependencies: ["courier-openapi"]
        ),
        // `swift package courier-openapi-check …`: `check` alone, which only reads, so it asks for no permission.
        .plugin(
            name: "CourierOpenAPICheck",
            capability: .command(
                intent: .custom(
                    verb: "courier-openapi-check",
                    description: "Checks an address book against an OpenAPI description (reads only).")
            ),
            dependencies: ["courier-openapi"]
        ),
        .testTarget(
            name: "CourierOpenAPITests",
            // Fixtures/ holds descriptions the tests read from the source tree (see Fixtures/README.md).
            dependencies: [
                "CourierOpenAPI",
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
