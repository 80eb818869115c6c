import Foundation

/// Every setting of one call, resolved from the endpoint's ``EndpointOptions`` and the call's ``APIConfiguration``:
/// the one place where an endpoint's value wins over the configuration's. Nothing else falls back from one to the
/// other; the request factory, the pipeline (plugins, status validation), the decoding step and the cache read the
/// settings from here.
///
/// A call makes one when it starts: `RequestFactory` when it builds the request (base URL, headers, parameter
/// options, and the transfer settings it copies onto the request — ``APIRequest/timeout``,
/// ``APIRequest/redirectPolicy``, ``APIRequest/maxResponseBytes`` — where plugins may change them), and
/// `CallExecution` with the configuration the request is sent with (plugins, accepted status codes, decoder, cache
/// policy: `request.send(using:)` may send a request with another configuration than it was built with). The idle
/// timeout of a download or a stream is the call's own argument (``ResponseDelivery/idleTimeout``), with no
/// endpoint or configuration value to weigh.
///
/// A value of two references: each setting is resolved when it is read, so a call pays only for the settings it
/// uses, and nothing is allocated or copied on the request (a request is copied through every plugin and layer).
///
/// To add an option: a field of ``EndpointOptions`` (and `scripts/endpoint-options`), the configuration's default if
/// it has one, and its resolution here; the code that uses it reads it from here.
struct ResolvedOptions {
    /// The endpoint called.
    let endpoint: APIEndpoint
    /// The configuration of the call.
    let configuration: APIConfiguration

    /// Resolves `endpoint`'s options against `configuration`.
    init(endpoint: APIEndpoint, configuration: APIConfiguration) {
        self.endpoint = endpoint
        self.configuration = configuration
    }

    /// Configuration headers, then the endpoint's (same names replaced).
    var headers: HTTPHeaders {
        var headers = configuration.headers
        let declared = endpoint.declaredOptions.headers
        if !declared.isEmpty { headers.merge(declared) }
        return headers
    }
    /// The deadline of the whole call.
    var timeout: Duration { endpoint.declaredOptions.timeout ?? configuration.timeout }
    /// What to do when the server redirects.
    var redirectPolicy: RedirectPolicy { endpoint.declaredOptions.redirectPolicy ?? configuration.redirectPolicy }
    /// The most response bytes held in memory.
    var maxResponseBytes: Int { endpoint.declaredOptions.maxResponseBytes ?? configuration.maxResponseBytes }
    /// The status codes that count as success.
    var acceptableStatusCodes: AcceptableStatusCodes {
        endpoint.declaredOptions.acceptableStatusCodes ?? configuration.acceptableStatusCodes
    }
    /// The configuration's plugins, then the endpoint's (which run inside them, marking the request as the
    /// endpoint's: their credentials go wherever it goes, see ``CredentialOrigins``).
    var plugins: [any APIPlugin] {
        let declared = endpoint.declaredOptions.plugins
        return declared.isEmpty
            ? configuration.plugins : configuration.plugins + declared.map { EndpointPlugin(base: $0) }
    }
    /// The decoder of the response body when the call names none: the endpoint's, over the configuration's.
    var decoder: any ResponseDecoder {
        Self.decoder(endpoint.declaredOptions.decoder, over: configuration.responseDecoder)
    }
    /// The cache policy of the call's cache: the endpoint's `.cache` tag, else the cache's default; `nil` without a
    /// cache.
    var cachePolicy: CachePolicy? {
        configuration.cache.map { Self.cachePolicy(of: endpoint, in: $0) }
    }
    /// The endpoint's typed metadata.
    var tags: APITags { endpoint.declaredOptions.tags }
    /// Where parameters go: the endpoint's encoding, else the method's default.
    var encoding: ParameterEncoding { endpoint.effectiveEncoding }
    /// The value options of parameters with `encoding`: its own, else the configuration's.
    func parameterOptions(for encoding: ParameterEncoding) -> ParameterEncodingOptions {
        encoding.options ?? configuration.parameterOptions
    }
    /// The encoder of JSON bodies with `encoding`: the configuration's, writing dates in the style of the encoding's
    /// own options.
    func jsonEncoder(for encoding: ParameterEncoding) -> JSONEncoder {
        encoding.options.map { configuration.encoder.coder.writingDates($0.dates) } ?? configuration.encoder.coder
    }

    /// The base URL's text for `endpoint`: the endpoint's own base URL, else its named host's in the configuration,
    /// else the configuration's base URL; `nil` when the path is absolute.
    func baseURL() throws(APIError) -> String? {
        if endpoint.template.isAbsolute { return nil }
        let base: URL?
        if let declared = endpoint.declaredOptions.baseURL {
            base = declared
        } else if let host = endpoint.declaredOptions.host {
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
    /// The call's settings for sending this request with `configuration`.
    func resolvedOptions(for configuration: APIConfiguration) -> ResolvedOptions {
        ResolvedOptions(endpoint: endpoint, configuration: configuration)
    }
}
