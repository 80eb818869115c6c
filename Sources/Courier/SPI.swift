// Courier's boundary, drawn by audience.
//
// - Public: everything the README, an article or a Playground page teaches, including the extension points of
//   ordinary tasks: a method or a tag of your own (`HTTPMethodMarker`, `APITagKey`), a body format of your own
//   (`ParameterEncoder`), cache storage and its clock (`CacheStorage`,
//   `ResponseCache(memory:disk:defaultPolicy:now:)`), writing an executor (`APIExecutor`, what it reads from a
//   request and reports back: `ResponseDelivery`, `RequestBody`'s chunks, `ResponseStream`, `TransferProgress`,
//   `RedirectPolicy.decision(for:)`, `SensitiveData`, `CookieSendingExecutor`, `TransferFeatures` and an
//   `ExecutorLimitation`'s missing features) and observing calls (`CallObserver`).
// - `@_spi(CourierInternals)`: plumbing shared between this repository's own packages (CourierTesting,
//   CourierAsyncHTTPClient, CourierObservability), never taught and free to change in any release. Each lives in
//   the room of what it serves, and this is its index:
//   - WebSockets/: `WebSocketStateMachine` with `WebSocketPayload` (the protocol's rules, both executors);
//   - Observability/: the HAR model (`HAR`), the call-recording hooks on `APIRequest`, `CallOutcomeObserver` and
//     `CallOutcome`, `LogEntry` and `CallEndReportingPlugin` (the parts of a log entry, a plugin told how each call
//     ended);
//   - Security/: `SensitiveData.Recording`, `TLSTrustLimitation`, and the readers of a `TLSTrust` (its rules, their
//     roots, pins and identities), SPI members of a public type that stay in its declaration;
//   - Executors/: `CookieJar`; Errors/: `ExecutorStop`, and how an executor reports a refused connection
//     (`TLSRefusal.init(host:port:cause:pins:)`, `APIError.refusing(_:)`);
//   - Transport/: `HTTPTransport.executeByPolicy(_:)`, for an executor whose 1.0 API declares `execute(_:)` itself,
//     and `TLSTrustHolding` (the trust of a transport, whose rotation dates the policy warns about).
//   No README block, article, Playground page, generated book or CourierTesting API a user calls may need it.
// - `@_spi(Testing)`: hooks for this repository's tests and test tools only.
//
// scripts/public-api counts the public API from the symbol graph; SPI is counted in a column of its own.
