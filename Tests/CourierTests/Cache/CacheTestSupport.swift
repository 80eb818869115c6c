import Courier
import Foundation
import Testing

/// A clock the tests move by hand.
final class TestClock: Sendable {
    let date = LockedBox(Date(timeIntervalSince1970: 1_800_000_000))

    var now: @Sendable () -> Date { { [date] in date.value } }

    func advance(_ seconds: TimeInterval) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// An origin server for the logic above the executor: counts requests, answers each with a numbered body
/// (`{"n":1}`, `{"n":2}`, ...) and the headers the test chose, and `304` to a matching `If-None-Match`.
final class NumberingServer: APIExecutor {
    let requests = LockedBox<[APIRequest]>([])
    let headers: LockedBox<HTTPHeaders>
    let status = LockedBox(200)
    let failure = LockedBox<(any Error)?>(nil)
    let delay: Duration?

    init(headers: HTTPHeaders = [:], delay: Duration? = nil) {
        self.headers = LockedBox(headers)
        self.delay = delay
    }

    var hits: Int { requests.value.count }

    func execute(_ request: APIRequest) async throws -> APIResponse {
        let number = requests.withLock { requests in
            requests.append(request)
            return requests.count
        }
        if let delay { try await Task.sleep(for: delay) }
        if let failure = failure.value { throw failure }
        let headers = self.headers.value
        if let eTag = headers[.eTag], request.headers[.ifNoneMatch] == eTag {
            return APIResponse(statusCode: 304, headers: headers, request: request)
        }
        return APIResponse(
            statusCode: status.value, headers: headers, body: .data(Data("{\"n\":\(number)}".utf8)),
            request: request)
    }
}

struct Numbered: Decodable, Sendable, Equatable {
    let n: Int
}

/// A fresh, empty directory under the temporary directory.
func temporaryCacheDirectory(_ name: String = #function) -> URL {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    return FileManager.default.temporaryDirectory
        .appendingPathComponent("courier-cache-tests-\(safe)-\(UUID().uuidString)", isDirectory: true)
}

/// The entry files in `directory`.
func cacheFiles(in directory: URL) -> [URL] {
    ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
        .filter { $0.pathExtension == "courier-cache" }
}

/// A configuration for the logic above the executor: `server` answers, `cache` sits in front of it.
func cachingConfiguration(
    _ server: any APIExecutor, cache: ResponseCache, plugins: [any APIPlugin] = []
)
    -> APIConfiguration
{
    APIConfiguration(baseURL: URL(string: "https://api.example.com"), executor: server, plugins: plugins).with {
        $0.cache = cache
    }
}
