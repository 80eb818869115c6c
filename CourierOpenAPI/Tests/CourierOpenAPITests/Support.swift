import Foundation
import Testing

@testable import CourierOpenAPI

/// Paths and helpers shared by the tests.
enum Support {
    /// CourierOpenAPI/Tests/CourierOpenAPITests
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    /// CourierOpenAPI/
    static let packageFolder = testsFolder.deletingLastPathComponent().deletingLastPathComponent()
    /// The repository root (the Courier package).
    static let repositoryFolder = packageFolder.deletingLastPathComponent()

    static func fixture(_ name: String) -> URL { testsFolder.appendingPathComponent("Fixtures/\(name)") }

    static func description(_ name: String) throws -> OpenAPIDescription {
        try OpenAPIDescription(contentsOf: fixture(name))
    }

    static func description(yaml: String) throws -> OpenAPIDescription {
        try OpenAPIDescription(data: Data(yaml.utf8))
    }

    /// The generated files of a fixture, all in one text.
    static func generated(_ name: String, grouping: Generator.Grouping = .byTag) throws -> [String: String] {
        Generator(description: try description(name), grouping: grouping).files()
    }

    /// Runs a program and returns its exit status and its standard output and error together.
    static func run(_ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
