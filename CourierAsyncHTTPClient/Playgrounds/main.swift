// CourierAHCPlayground — pages of CourierAsyncHTTPClient run against real local servers (the root Playground cannot
// use this package). `scripts/test-ahc` runs it after the tests, with the fault server's URL in COURIER_FAULT_URL;
// any error fails it (exit code 1).
import Foundation

guard let text = ProcessInfo.processInfo.environment["COURIER_FAULT_URL"], let faultServer = URL(string: text) else {
    print("CourierAHCPlayground: COURIER_FAULT_URL is not set: run scripts/test-ahc, which starts the fault server")
    exit(2)
}
do {
    try await WebSocketsPage.run(baseURL: faultServer)
} catch {
    print("CourierAHCPlayground: failed: \(error)")
    exit(1)
}
