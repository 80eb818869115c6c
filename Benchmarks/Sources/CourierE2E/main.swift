import CourierBenchmarkSupport
import Foundation

// Courier against raw `URLSession.data(for:)` end to end, alternating in one process; see EndToEnd.swift.
//
// No top-level `await`: that would make this an async main, which parks the main thread in `dispatch_main()`,
// and valgrind 3.19 crashes there (in libdispatch's `_dispatch_sig_thread`), which would rule out callgrind.
// The main thread reads the `@MainActor` address book, starts the work in a task and waits on a semaphore.
let endpoints = Endpoints()
let arguments = Array(CommandLine.arguments.dropFirst())
Task.detached {
    do {
        try await EndToEnd.main(arguments, endpoints: endpoints)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("CourierE2E: \(error)\n".utf8))
        exit(1)
    }
}
DispatchSemaphore(value: 0).wait()
