// `.swiftLog(logger)` and `.tracing()` moved to CourierObservability (so that an app logging with swift-log needs
// no SwiftNIO); re-exported here so that code importing CourierAsyncHTTPClient for them compiles unchanged.
@_exported import CourierObservability
