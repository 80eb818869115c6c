// CourierObservability's plugins and observers (`.swiftLog(logger)`, `.tracing()`, `.metrics()`, `HARRecorder`) live
// in a package without SwiftNIO, so that an app logging with swift-log needs none; re-exported here, so that
// `import CourierAsyncHTTPClient` brings them too.
@_exported import CourierObservability
