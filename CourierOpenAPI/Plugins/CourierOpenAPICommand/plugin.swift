import Foundation
import PackagePlugin

/// `swift package courier-openapi ARGUMENTS…`: runs the `courier-openapi` command in the package that calls it.
///
/// A package that depends on CourierOpenAPI runs, from its folder:
///
///     swift package --allow-writing-to-package-directory courier-openapi generate openapi.yaml --output Sources/App/API
///
/// Relative paths are the calling package's; the arguments are `courier-openapi`'s own (`generate`, `check`,
/// `normalize`). It may write into the package, so SwiftPM asks for `--allow-writing-to-package-directory` whatever
/// the command; a read-only step (CI) checks with the `courier-openapi-check` plugin, which asks for nothing:
///
///     swift package courier-openapi-check openapi.yaml Sources/App/API
///
/// Exits with the command's status.
@main
struct CourierOpenAPICommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "courier-openapi")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.error("courier-openapi \(arguments.first ?? "") exited with \(process.terminationStatus)")
        }
    }
}
