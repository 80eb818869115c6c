import Foundation
import PackagePlugin

/// `swift package courier-openapi-check DESCRIPTION SOURCES…`: `courier-openapi check` in the package that calls
/// it, without write access to the package (a read-only CI step needs no `--allow-writing-to-package-directory`):
///
///     swift package courier-openapi-check openapi.yaml Sources/App/API
///
/// Relative paths are the calling package's; the arguments are `check`'s own (`--all`). Exits with the command's
/// status, so it fails a CI step on drift.
@main
struct CourierOpenAPICheckCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let process = Process()
        process.executableURL = try context.tool(named: "courier-openapi").url
        process.arguments = ["check"] + arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.error("courier-openapi check exited with \(process.terminationStatus)")
        }
    }
}
