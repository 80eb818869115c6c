import Foundation

// Courier against raw `URLSession.data(for:)` end to end, alternating in one process; see EndToEnd.swift.
do {
    try await EndToEnd.main(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("CourierE2E: \(error)\n".utf8))
    exit(1)
}
