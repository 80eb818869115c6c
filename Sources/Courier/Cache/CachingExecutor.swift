import Foundation

/// The executor the plugin chain ends in when a cache is configured: the cache, then the real executor.
struct CachingExecutor: APIExecutor {
    let cache: ResponseCache
    let base: any APIExecutor

    func execute(_ request: APIRequest) async throws -> APIResponse {
        try await cache.respond(to: request, executor: base)
    }

    var supportedTransfers: TransferFeatures { base.supportedTransfers }
}
