import Foundation

/// Every setting of one call, resolved once from the endpoint's ``EndpointOptions`` and the call's
/// ``APIConfiguration``: the one place where an endpoint's value wins over the configuration's. Nothing else falls
/// back from one to the other; the request factory, the pipeline (plugins, status validation), the decoding step
/// and the cache read the resolved value.
///
/// It is made when a call starts, by `RequestFactory` while it builds the request, and travels on the request
/// (`APIRequest.resolvedOptions(for:)`). A request sent with another configuration than the one it was built with
/// (`request.send(using:)`), or built by hand, is resolved against the sending configuration then. The transfer
/// settings (``APIRequest/timeout``, ``APIRequest/redirectPolicy``, ``APIRequest/maxResponseBytes``) are copied onto
/// the request, where plugins may change them; the idle timeout of a download or a stream is the call's own
/// argument (``ResponseDelivery/idleTimeout``), with no endpoint or configuration value to weigh.
///
/// To add an option: a field of ``EndpointOptions`` (and the configuration's default, if it has one), resolved
/// here; the code that uses it reads it from here.
///
/// Immutable and shared by reference: a request is copied through every plugin and layer.
final class ResolvedOptions: Sendable {
    /// The configuration the options were resolved against.
    let configuration: APIConfiguration
    /// Configuration headers, then the endpoint's (same names replaced).
    let headers: HTTPHeaders
    /// The deadline of the whole call.
    let timeout: Duration
    /// What to do when the server redirects.
    let redirectPolicy: RedirectPolicy
    /// The most response bytes held in memory.
    let maxResponseBytes: Int
    /// The status codes that count as success.
    let acceptableStatusCodes: AcceptableStatusCodes
    /// The configuration's plugins, then the endpoint's (which run inside them).
    let plugins: [any APIPlugin]
    /// The decoder of the response body when the call names none: the endpoint's, over the configuration's.
    let decoder: any ResponseDecoder
    /// The cache policy of the call's cache: the endpoint's `.cache` tag, else the cache's default; `nil` without a
    /// cache.
    let cachePolicy: CachePolicy?
    /// The endpoint's typed metadata.
    let tags: APITags
    /// The value options of parameters: the endpoint encoding's own, else the configuration's.
    let parameterOptions: ParameterEncodingOptions
    /// The encoder of JSON bodies: the configuration's, writing dates in the style of the encoding's own options.
    let jsonEncoder: JSONEncoder
    /// Where parameters go: the endpoint's encoding, else the method's default.
    let encoding: ParameterEncoding

    /// Resolves `endpoint`'s options against `configuration`.
    init(endpoint: APIEndpoint, configuration: APIConfiguration) {
        let options = endpoint.options
        self.configuration = configuration
        var headers = configuration.headers
        if !options.headers.isEmpty { headers.merge(options.headers) }
        self.headers = headers
        timeout = options.timeout ?? configuration.timeout
        redirectPolicy = options.redirectPolicy ?? configuration.redirectPolicy
        maxResponseBytes = options.maxResponseBytes ?? configuration.maxResponseBytes
        acceptableStatusCodes = options.acceptableStatusCodes ?? configuration.acceptableStatusCodes
        plugins = options.plugins.isEmpty ? configuration.plugins : configuration.plugins + options.plugins
        decoder = Self.decoder(options.decoder, over: configuration.responseDecoder)
        cachePolicy = configuration.cache.map { Self.cachePolicy(of: endpoint, in: $0) }
        tags = options.tags
        let encoding = options.encoding ?? endpoint.method.defaultEncoding
        self.encoding = encoding
        parameterOptions = encoding.options ?? configuration.parameterOptions
        jsonEncoder =
            encoding.options.map { configuration.encoder.coder.writingDates($0.dates) } ?? configuration.encoder.coder
    }

    /// Whether these options were resolved against `configuration` (the same configuration value, not a changed copy).
    func isResolved(against configuration: APIConfiguration) -> Bool {
        self.configuration.isSame(as: configuration)
    }

    /// The base URL's text for `endpoint`: the endpoint's own base URL, else its named host's in the configuration,
    /// else the configuration's base URL; `nil` when the path is absolute.
    func baseURL(for endpoint: APIEndpoint) throws(APIError) -> String? {
        if endpoint.template.isAbsolute { return nil }
        let base: URL?
        if let declared = endpoint.baseURL {
            base = declared
        } else if let host = endpoint.host {
            guard let url = configuration.hosts[host] else {
                throw APIError(.invalidRequest(.unknownHost(host)), endpoint: endpoint)
            }
            base = url
        } else {
            // The configuration checked its base URL once, when it was set.
            if let text = configuration.baseURLText { return text }
            guard let url = configuration.baseURL else {
                throw APIError(.invalidRequest(.missingBaseURL), endpoint: endpoint)
            }
            base = url
        }
        guard let base, let text = RequestFactory.baseText(of: base) else {
            throw APIError(.invalidRequest(.invalidBaseURL), endpoint: endpoint)
        }
        return text
    }

    /// The decoder a call uses: its own `decoder:` argument, else these options' ``decoder``. A key-path decoder
    /// without a base (`.at("data")`) decodes the envelope with the next decoder in that order.
    func decoder(forCall callDecoder: (any ResponseDecoder)?) -> any ResponseDecoder {
        Self.decoder(callDecoder, over: decoder)
    }

    /// `chosen` over `next`: `next` when nothing is chosen; a key-path decoder without a base gets `next` as its base.
    private static func decoder(
        _ chosen: (any ResponseDecoder)?, over next: any ResponseDecoder
    ) -> any ResponseDecoder {
        guard let chosen else { return next }
        if let keyed = chosen as? KeyPathResponseDecoder, keyed.base == nil {
            return KeyPathResponseDecoder(keys: keyed.keys, base: next)
        }
        return chosen
    }

    /// The policy of `endpoint`'s calls in `cache`: its `.cache` tag, else the cache's ``ResponseCache/defaultPolicy``.
    static func cachePolicy(of endpoint: APIEndpoint, in cache: ResponseCache) -> CachePolicy {
        endpoint.tags[CachePolicyKey.self] ?? cache.defaultPolicy
    }
}

extension APIRequest {
    /// The call's resolved options for a call with `configuration`: the ones made when the request was built, if with
    /// the same configuration; else resolved now.
    func resolvedOptions(for configuration: APIConfiguration) -> ResolvedOptions {
        if let resolved, resolved.isResolved(against: configuration) { return resolved }
        return ResolvedOptions(endpoint: endpoint, configuration: configuration)
    }
}
