import Foundation

/// Everything a call needs besides its endpoint and parameter: where to send it, which headers to add,
/// how to encode and decode, what counts as success, and which executor sends it.
///
/// A call finds its configuration in this order:
/// 1. the call's own `using:` argument;
/// 2. a task-scoped configuration set with ``withCurrent(_:isolation:operation:)``, so parallel tests
///    never share state;
/// 3. the process-wide ``default``, set once at start-up.
///
/// ```swift
/// APIConfiguration.default = APIConfiguration(baseURL: URL(string: "https://api.github.com")!)
///
/// try await APIConfiguration.withCurrent(.init(baseURL: stagingURL)) {
///     let user: User = try await GitHub.$user.request(with: "octocat")   // goes to staging
/// }
/// ```
public struct APIConfiguration: Sendable {
    /// The base URL that endpoint paths are appended to; endpoints with an absolute URL ignore it.
    public var baseURL: URL? {
        get { fields.baseURL }
        set { fields.baseURL = newValue }
    }
    /// Base URLs of named hosts, for endpoints declared with `host:`.
    public var hosts: [APIHost: URL] {
        get { fields.hosts }
        set { fields.hosts = newValue }
    }
    /// Headers sent with every request; endpoint headers with the same name replace them.
    public var headers: HTTPHeaders {
        get { fields.headers }
        set { fields.headers = newValue }
    }
    /// The deadline of a whole call unless its endpoint sets one.
    public var timeout: Duration {
        get { fields.timeout }
        set { fields.timeout = newValue }
    }
    /// What to do when a server redirects, unless an endpoint sets its own policy. Default: ``RedirectPolicy/follow``.
    public var redirectPolicy: RedirectPolicy {
        get { fields.redirectPolicy }
        set { fields.redirectPolicy = newValue }
    }
    /// The most response bytes (after content decoding) a call holds in memory unless its endpoint sets
    /// its own limit; inclusive: a body, or a WebSocket message, of exactly this many bytes is accepted. Default:
    /// ``defaultMaxResponseBytes`` (100 MiB).
    public var maxResponseBytes: Int {
        get { fields.maxResponseBytes }
        set { fields.maxResponseBytes = newValue }
    }
    /// Names whose values are secret in every request, beyond the ones Courier always treats as secret: a
    /// session header of your service, a query item that carries a token, a body key (names compare
    /// case-insensitively; see ``APIRequest/sensitiveNames``).
    public var sensitiveNames: Set<HTTPHeaderName> {
        get { fields.sensitiveNames }
        set { fields.sensitiveNames = newValue }
    }
    /// Encodes model parameters into JSON bodies. Default: sorted keys, unescaped slashes, ISO 8601 dates.
    /// Change its settings in place (`configuration.encoder.keyEncodingStrategy = .convertToSnakeCase`):
    /// only this configuration changes, not copies of it.
    public var encoder: CopyOnWriteCoder<JSONEncoder> {
        get { fields.encoder }
        set { fields.encoder = newValue }
    }
    /// Decodes response bodies when neither the call nor the endpoint names a decoder. Default: JSON with
    /// ``makeDefaultDecoder()`` (ISO 8601 dates). Another JSON decoder is `.json(decoder)`; a service that does
    /// not speak JSON names its own (`.propertyList`, `XMLResponseDecoder()`).
    public var responseDecoder: any ResponseDecoder {
        get { fields.responseDecoder }
        set { fields.responseDecoder = ResponseDecoding.completed(newValue) }
    }
    /// How arrays, booleans, dates and nested values are written into queries and forms.
    public var parameterOptions: ParameterEncodingOptions {
        get { fields.parameterOptions }
        set { fields.parameterOptions = newValue }
    }
    /// The status codes treated as success unless an endpoint sets its own.
    public var acceptableStatusCodes: AcceptableStatusCodes {
        get { fields.acceptableStatusCodes }
        set { fields.acceptableStatusCodes = newValue }
    }
    /// Sends the requests.
    public var executor: any APIExecutor {
        get { fields.executor }
        set { fields.executor = newValue }
    }
    /// Plugins around every call, outermost first; endpoint plugins run inside these.
    public var plugins: [any APIPlugin] {
        get { fields.plugins }
        set { fields.plugins = newValue }
    }
    /// The response cache between the plugins and the executor; `nil` (the default) for none. Endpoints
    /// choose how they use it with a `.cache` tag (see ``CachePolicy``).
    public var cache: ResponseCache? {
        get { fields.cache }
        set { fields.cache = newValue }
    }
    /// Watch every call made with this configuration: each observer sees each event of each call (see
    /// ``CallObserver``), and responses and errors then carry the call's ``CallTimeline``. Empty (the default): calls
    /// record nothing. (An observer told only each call's start and end, as CourierObservability's `.metrics()`,
    /// makes calls record no timeline.)
    public var observers: [any CallObserver] {
        get { fields.observers }
        set { fields.observers = newValue }
    }

    /// The settings, behind one reference: a call copies its configuration several times, and copying one
    /// reference costs a retain where copying every field costs one per stored reference. The box is immutable:
    /// a change makes a new one (configurations change at set-up, not per call), so copies never share a change.
    private var storage: Storage

    /// The fields: read in place; a change is made on a copy that goes into a new box.
    private var fields: Fields {
        _read { yield storage.fields }
        _modify {
            var changed = storage.fields
            yield &changed
            changed.baseURLText = changed.baseURL.flatMap(RequestFactory.baseText(of:))
            changed.configuredOrigins = ConfiguredOrigins(baseURL: changed.baseURL, hosts: changed.hosts)
            changed.sortObservers()
            changed.pluginsReportAtCallEnd = changed.plugins.contains { $0 is any CallEndReportingPlugin }
            storage = Storage(changed)
        }
    }

    /// The fields of a configuration.
    private struct Fields: Sendable {
        /// The text of `baseURL` if it can be a base URL, made when a field changes (read on every call).
        var baseURLText: String?
        var baseURL: URL?
        var hosts: [APIHost: URL]
        /// The origins of `baseURL` and `hosts`, made when a field changes (read by every call with plugins).
        var configuredOrigins: ConfiguredOrigins
        var headers: HTTPHeaders
        var timeout: Duration
        var redirectPolicy: RedirectPolicy
        var maxResponseBytes: Int
        var sensitiveNames: Set<HTTPHeaderName>
        var encoder: CopyOnWriteCoder<JSONEncoder>
        var responseDecoder: any ResponseDecoder
        var parameterOptions: ParameterEncodingOptions
        var acceptableStatusCodes: AcceptableStatusCodes
        var executor: any APIExecutor
        var plugins: [any APIPlugin]
        var cache: ResponseCache?
        var observers: [any CallObserver]
        /// `observers` told every event, and those told only each call's start and end (made when a field
        /// changes: a call reads them).
        var eventObservers: [any CallObserver] = []
        var outcomeObservers: [any CallOutcomeObserver] = []
        /// Whether one of `plugins` is told how each call ended (`CallEndReportingPlugin`).
        var pluginsReportAtCallEnd = false

        /// Sorts `observers` into the two kinds.
        mutating func sortObservers() {
            eventObservers = []
            outcomeObservers = []
            for observer in observers {
                if let outcome = observer as? any CallOutcomeObserver {
                    outcomeObservers.append(outcome)
                } else {
                    eventObservers.append(observer)
                }
            }
        }
    }

    /// The immutable box of a configuration's fields.
    private final class Storage: Sendable {
        let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    /// The text of ``baseURL`` if it has a scheme and a host, checked when it was set.
    var baseURLText: String? { storage.fields.baseURLText }

    /// The origins of ``baseURL`` and ``hosts``: where the configuration's plugins add credentials by default.
    var configuredOrigins: ConfiguredOrigins { storage.fields.configuredOrigins }

    /// The ``observers`` told every event of a call: the call records its timeline when there is one.
    var eventObservers: [any CallObserver] { storage.fields.eventObservers }

    /// The ``observers`` told only each call's start and end.
    var outcomeObservers: [any CallOutcomeObserver] { storage.fields.outcomeObservers }

    /// Whether a call to `endpoint` tells its plugins how it ended: one of the configuration's or the endpoint's
    /// plugins logs at the call's end (`CallEndReportingPlugin`), so the call carries a `CallRecorder`.
    func reportsAtCallEnd(_ endpoint: APIEndpoint) -> Bool {
        if storage.fields.pluginsReportAtCallEnd { return true }
        let declared = endpoint.declaredOptions.plugins
        return !declared.isEmpty && declared.contains { $0 is any CallEndReportingPlugin }
    }

    /// Creates a configuration with any of its fields; every argument has a default (the properties above say
    /// what each one is).
    public init(
        baseURL: URL? = nil,
        hosts: [APIHost: URL] = [:],
        headers: HTTPHeaders = [:],
        timeout: Duration = .seconds(60),
        redirectPolicy: RedirectPolicy = .follow,
        maxResponseBytes: Int = APIConfiguration.defaultMaxResponseBytes,
        sensitiveNames: Set<HTTPHeaderName> = [],
        encoder: JSONEncoder = APIConfiguration.makeDefaultEncoder(),
        responseDecoder: any ResponseDecoder = .json(APIConfiguration.makeDefaultDecoder()),
        parameterOptions: ParameterEncodingOptions = ParameterEncodingOptions(),
        acceptableStatusCodes: AcceptableStatusCodes = .successful,
        executor: any APIExecutor = URLSessionExecutor.shared,
        plugins: [any APIPlugin] = [],
        cache: ResponseCache? = nil,
        observers: [any CallObserver] = []
    ) {
        var fields = Fields(
            baseURLText: baseURL.flatMap(RequestFactory.baseText(of:)), baseURL: baseURL, hosts: hosts,
            configuredOrigins: ConfiguredOrigins(baseURL: baseURL, hosts: hosts), headers: headers, timeout: timeout,
            redirectPolicy: redirectPolicy,
            maxResponseBytes: maxResponseBytes, sensitiveNames: sensitiveNames,
            encoder: CopyOnWriteCoder(encoder), responseDecoder: ResponseDecoding.completed(responseDecoder),
            parameterOptions: parameterOptions, acceptableStatusCodes: acceptableStatusCodes, executor: executor,
            plugins: plugins, cache: cache, observers: observers)
        fields.sortObservers()
        fields.pluginsReportAtCallEnd = plugins.contains { $0 is any CallEndReportingPlugin }
        storage = Storage(fields)
    }

    /// 100 MiB: the default most response bytes a call holds in memory.
    public static let defaultMaxResponseBytes = 100 * 1024 * 1024

    /// A `JSONEncoder` with sorted keys, unescaped slashes and ISO 8601 dates (`2024-05-06T07:08:09Z`).
    ///
    /// Dates are written in the proleptic Gregorian calendar, before 1582 too (Foundation's `.iso8601`
    /// strategy switches to the Julian calendar there), and a date outside the years 0000–9999, NaN or
    /// infinite, is an `EncodingError` rather than a clamped year.
    public static func makeDefaultEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = DateText.jsonEncodingStrategy
        return encoder
    }

    /// A `JSONDecoder` that reads dates as ISO 8601 / RFC 3339 date-times (`2024-05-06T07:08:09Z`, with or
    /// without fractional seconds, `Z` or an offset) in the proleptic Gregorian calendar, the way the default
    /// encoder writes them.
    public static func makeDefaultDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISO8601Parser.jsonDecodingStrategy
        return decoder
    }

    /// Returns a copy changed by `change`, e.g. `configuration.with { $0.timeout = .seconds(5) }`.
    public func with(_ change: (inout APIConfiguration) throws -> Void) rethrows -> APIConfiguration {
        var copy = self
        try change(&copy)
        return copy
    }

    // MARK: - Scopes

    private static let processDefault = LockedBox(APIConfiguration())

    @TaskLocal private static var taskOverride: APIConfiguration?

    /// The process-wide configuration, used when neither the call nor the task sets one. Safe to read
    /// and set from any thread.
    public static var `default`: APIConfiguration {
        get { processDefault.value }
        set { processDefault.value = newValue }
    }

    /// The configuration in effect here: the task-scoped one if set, else ``default``.
    public static var current: APIConfiguration {
        taskOverride ?? processDefault.value
    }

    /// Runs `operation` with `configuration` in effect for every call made in it, including calls in
    /// child tasks; other tasks are not affected. It throws what `operation` throws, with its type: a closure
    /// declared `throws(APIError)` keeps `APIError`, and a closure that cannot throw needs no `try`.
    @discardableResult
    public static func withCurrent<Value, Failure: Error>(
        _ configuration: APIConfiguration,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        // TaskLocal.withValue rethrows `any Error`: carry the typed outcome through it instead.
        let outcome: Result<Value, Failure> = await $taskOverride.withValue(
            configuration,
            operation: { () async -> Result<Value, Failure> in
                do throws(Failure) { return .success(try await operation()) } catch { return .failure(error) }
            },
            isolation: isolation)
        return try outcome.get()
    }

    /// Runs the synchronous `operation` with `configuration` in effect; it throws what `operation` throws.
    @discardableResult
    public static func withCurrent<Value, Failure: Error>(
        _ configuration: APIConfiguration,
        operation: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let outcome: Result<Value, Failure> = $taskOverride.withValue(configuration) {
            do throws(Failure) { return .success(try operation()) } catch { return .failure(error) }
        }
        return try outcome.get()
    }
}
