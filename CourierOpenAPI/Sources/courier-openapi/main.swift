import ArgumentParser
import CourierOpenAPI
import Foundation

/// The command line: `courier-openapi generate` and `courier-openapi check`.
@main
struct CourierOpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier-openapi",
        abstract: "Imports an OpenAPI description into a Courier address book, and checks a book against it.",
        subcommands: [Generate.self, Check.self, Normalize.self]
    )
}

/// `courier-openapi generate DESCRIPTION --output DIR`.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Writes an editable address book (books, models, configuration) for a description.")

    @Argument(help: "The OpenAPI 3.0 / 3.1 or Swagger 2.0 description, JSON or YAML.")
    var description: String

    @Option(name: .shortAndLong, help: "The folder to write the Swift files to (created if missing).")
    var output: String

    @Flag(help: "One book for every operation instead of one per tag.")
    var single = false

    @Option(
        help: ArgumentHelp(
            "The access level of the generated declarations: internal, package or public (a book in a module of its own).",
            valueName: "level"))
    var access: Generator.Access = .internal

    func run() throws {
        let document = try OpenAPIDescription(contentsOf: URL(fileURLWithPath: description))
        let files = Generator(description: document, grouping: single ? .single : .byTag, access: access).files()
        let folder = URL(fileURLWithPath: output, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, contents) in files.sorted(by: { $0.key < $1.key }) {
            try Data(contents.utf8).write(to: folder.appendingPathComponent(name), options: .atomic)
            print("wrote \(folder.appendingPathComponent(name).path)")
        }
    }
}

extension Generator.Access: ExpressibleByArgument {}

/// `courier-openapi check DESCRIPTION SOURCES…`.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reports where an address book and a description disagree; exits with 1 on drift.")

    @Argument(help: "The OpenAPI 3.0 / 3.1 or Swagger 2.0 description, JSON or YAML.")
    var description: String

    @Argument(help: "Swift files or folders that declare the book.")
    var sources: [String]

    @Flag(help: "Operations the book does not declare are errors, not notes.")
    var all = false

    func run() throws {
        let document = try OpenAPIDescription(contentsOf: URL(fileURLWithPath: description))
        let report = try DriftChecker(description: document).check(paths: sources, requireAll: all)
        for finding in report.findings { print(finding) }
        print(report.summary)
        if report.hasDrift { throw ExitCode(1) }
    }
}

/// `courier-openapi normalize DESCRIPTION`.
struct Normalize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints the description as OpenAPI 3.x JSON (Swagger 2.0 converted), for tools that read JSON only.")

    @Argument(help: "The OpenAPI 3.0 / 3.1 or Swagger 2.0 description, JSON or YAML.")
    var description: String

    func run() throws {
        print(try OpenAPIDescription(contentsOf: URL(fileURLWithPath: description)).json)
    }
}
