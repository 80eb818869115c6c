import Courier
import Foundation
import Testing

/// Uploads with the real `URLSessionExecutor`: raw, file and stream bodies echoed by httpbin's `/anything`,
/// multipart forms echoed by `/post` and read part by part by the upload sink.
@Suite("Integration: uploads", .httpbin, .uploadSink)
struct UploadIntegrationTests {
    /// What httpbin's `/post` says about a multipart form.
    struct FormEcho: Decodable, Sendable {
        var form: [String: String]
        var files: [String: String]
        var headers: [String: String]
    }

    @MainActor enum Uploads {
        @POST("/anything/raw/{name}")
        static var raw: APIParameterBuilder<(name: String, bytes: Data)>? = .init {
            .body(.data($0.bytes), contentType: "text/plain; charset=utf-8", parameters: ["name": $0.name, "v": 1])
        }

        @PUT("/anything/file")
        static var file: APIParameterBuilder<URL>? = .init { $0 }

        @POST("/anything/stream")
        static var stream: APIParameterBuilder<(chunks: AsyncStream<Data>, count: Int?)>? = .init {
            .body(.stream($0.chunks, count: $0.count), contentType: "text/plain")
        }

        @POST("/anything/search", encoding: .json.querying("version"))
        static var search: APIParameterBuilder<String>? = .init { ["version": 2, "text": $0] }

        @POST("/post", encoding: .multipart)
        static var form: APIParameterBuilder<(text: URL, empty: URL, binary: Data)>? = .init {
            [
                "title": "Zoë & \"co\" / 東京", "count": 3, #"say "hi""#: "quoted",
                "text": .file($0.text, contentType: "text/plain"),
                "empty": .file($0.empty, filename: "empty.txt", contentType: "text/plain"),
                "binary": .data($0.binary, filename: "b.bin"),
            ]
        }
    }

    static func temporaryFile(_ contents: Data, name: String = UUID().uuidString) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    static func chunks(_ texts: [String]) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for text in texts { continuation.yield(Data(text.utf8)) }
            continuation.finish()
        }
    }

    @Test("Raw bytes reach /anything as sent, with their content type, path and query values")
    func rawBody() async throws {
        let configuration = try HTTPBin.configuration()
        let text = "plain body: Zoë 東京 🚀\n"

        let echo: HTTPBinEcho = try await Uploads.$raw.request(
            with: (name: "a b", bytes: Data(text.utf8)), using: configuration)

        #expect(echo.data == text)
        #expect(echo.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(echo.header("Content-Length") == String(text.utf8.count))
        #expect(try echo.url == HTTPBin.baseText() + "/anything/raw/a%20b?v=1", "\(echo.url ?? "-")")
    }

    @Test("A file body is streamed from disk with its Content-Length and echoed byte for byte")
    func fileBody() async throws {
        let configuration = try HTTPBin.configuration()
        let text = String(repeating: "line of a file body ✓\n", count: 10_000)
        let file = try Self.temporaryFile(Data(text.utf8))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }

        let echo: HTTPBinEcho = try await Uploads.$file.request(with: file, using: configuration)

        #expect(echo.data == text)
        #expect(echo.method == "PUT")
        #expect(echo.header("Content-Length") == String(text.utf8.count))
        #expect(echo.header("Content-Type") == "application/octet-stream")
    }

    @Test("A stream is sent as it comes: chunked without a count, with Content-Length when given")
    func streamBody() async throws {
        let configuration = try HTTPBin.configuration()

        let chunked: HTTPBinEcho = try await Uploads.$stream.request(
            with: (chunks: Self.chunks(["one ", "two ", "three"]), count: nil), using: configuration)
        let counted: HTTPBinEcho = try await Uploads.$stream.request(
            with: (chunks: Self.chunks(["one ", "two ", "three"]), count: 13), using: configuration)

        #expect(chunked.data == "one two three")
        #expect(chunked.header("Transfer-Encoding")?.lowercased() == "chunked")
        #expect(counted.data == "one two three")
        #expect(counted.header("Content-Length") == "13")
        #expect(counted.header("Transfer-Encoding") == nil)
    }

    @Test("Upload progress on the call forms counts the bytes sent up to the body's size, then ends")
    func uploadProgress() async throws {
        // GIVEN a 3 MiB file, sent as a file body to /anything and as a multipart form to /post
        let configuration = try HTTPBin.configuration()
        let size = 3 * 1_048_576
        let file = try Self.temporaryFile(Data(repeating: UInt8(ascii: "x"), count: size))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let form = POST<URL>("/post", encoding: .multipart) { ["file": .file($0)] }
        let sends: [(name: String, size: Int?, call: @Sendable (TransferProgress) async throws -> Void)] = [
            (
                "file body, decoded", try await Uploads.$file.makeRequest(with: file, using: configuration).body.count,
                { progress in
                    let echo: HTTPBinEcho = try await Uploads.$file.request(
                        with: file, progress: progress, using: configuration)
                    #expect(echo.data?.utf8.count == size)
                }
            ),
            (
                "multipart form, raw response", try form.makeRequest(with: file, using: configuration).body.count,
                { progress in
                    let response: APIResponse = try await form.request(
                        with: file, progress: progress, using: configuration)
                    #expect(response.statusCode == 200)
                }
            ),
            (
                "file body, built request sent",
                try await Uploads.$file.makeRequest(with: file, using: configuration).body.count,
                { progress in
                    var request = try await Uploads.$file.makeRequest(with: file, using: configuration)
                    request.progress = progress
                    try await request.send(using: configuration)
                }
            ),
        ]

        for send in sends {
            // WHEN the call runs with a progress read concurrently by another task
            let progress = TransferProgress()
            let watcher = Task {
                var seen: [TransferProgress.Snapshot] = []
                for await snapshot in progress { seen.append(snapshot) }
                return seen
            }
            try await send.call(progress)

            // THEN the figures only grew, reached the body's size, and the sequence ended
            let seen = await watcher.value
            let expected = try #require(send.size, "\(send.name): the body's size is known")
            let last = try #require(seen.last, "\(send.name): no snapshot")
            #expect(expected >= size, "\(send.name)")
            #expect(last.sent == Int64(expected), "\(send.name): \(last)")
            #expect(last.expectedToSend == Int64(expected), "\(send.name): \(last)")
            #expect(last.isFinished, "\(send.name)")
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.sent <= $1.sent }, "\(send.name): \(seen.map(\.sent))")
            #expect(seen.dropLast().allSatisfy { !$0.isFinished }, "\(send.name): finished before the end")
        }
    }

    @Test("Query names and a JSON body on one endpoint: POST /search?version=2 with {\"text\":…}")
    func queryAndBody() async throws {
        let configuration = try HTTPBin.configuration()

        let echo: HTTPBinJSONEcho<[String: String]> = try await Uploads.$search.request(
            with: "lamp", using: configuration)

        #expect(try echo.url == HTTPBin.baseText() + "/anything/search?version=2")
        #expect(echo.json == ["text": "lamp"])
    }

    @Test("A multipart form reaches /post field by field and file by file, byte for byte")
    func multipartToHTTPBin() async throws {
        let configuration = try HTTPBin.configuration()
        let textFile = try Self.temporaryFile(Data("hello file\n".utf8), name: "hello.txt")
        let emptyFile = try Self.temporaryFile(Data(), name: "empty.txt")
        defer {
            try? FileManager.default.removeItem(at: textFile.deletingLastPathComponent())
            try? FileManager.default.removeItem(at: emptyFile.deletingLastPathComponent())
        }
        let binary = Data((0..<512).map { UInt8($0 % 256) })

        let echo: FormEcho = try await Uploads.$form.request(
            with: (text: textFile, empty: emptyFile, binary: binary), using: configuration)

        #expect(echo.form["title"] == "Zoë & \"co\" / 東京")
        #expect(echo.form["count"] == "3")
        #expect(echo.form[#"say "hi""#] == "quoted")
        #expect(echo.files["text"] == "hello file\n")
        #expect(echo.files["empty"] == "")
        // httpbin returns binary files as a data URL.
        #expect(echo.files["binary"] == "data:application/octet-stream;base64," + binary.base64EncodedString())
        let contentType = try #require(echo.headers["Content-Type"])
        #expect(contentType.hasPrefix("multipart/form-data; boundary=courier-"))
        #expect(echo.headers["Content-Length"] != nil)
    }

    /// The sink's report about one part.
    struct SinkPart: Decodable, Sendable, Equatable {
        var name: String
        var filename: String?
        var contentType: String?
        var bytes: Int
        var sha256: String
    }

    struct SinkReport: Decodable, Sendable {
        var bytes: Int
        var chunked: Bool
        var contentLength: String?
        var parts: [SinkPart]?
    }

    @Test("Names with quotes, UTF-8 filenames and a 0-byte file arrive intact, read by an independent parser")
    func multipartToTheSink() async throws {
        let sink = try UploadSink.url()
        let textFile = try Self.temporaryFile(Data("hello file".utf8), name: "résumé 東京.txt")
        let emptyFile = try Self.temporaryFile(Data(), name: "empty")
        defer {
            try? FileManager.default.removeItem(at: textFile.deletingLastPathComponent())
            try? FileManager.default.removeItem(at: emptyFile.deletingLastPathComponent())
        }
        let endpoint = POST<Void>(
            wrappedValue: .init {
                [
                    #"a "quoted" \name"#: "café 東京",
                    "doc": .file(textFile, contentType: "text/plain; charset=utf-8"),
                    "nothing": .file(emptyFile, filename: #"zero "bytes".txt"#),
                ]
            },
            sink.absoluteString + "/sink-multipart", encoding: .multipart)

        let report: SinkReport = try await endpoint.request(using: HTTPBin.configuration())

        #expect(!report.chunked)
        #expect(report.contentLength == String(report.bytes))
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        #expect(
            report.parts == [
                SinkPart(
                    name: #"a "quoted" \name"#, filename: nil, contentType: nil, bytes: 12,
                    sha256: "c1a5685ae2dfdc503745130af221b3dab32a07c983c77631d8aacf40529f282b"),
                SinkPart(
                    name: "doc", filename: "résumé 東京.txt", contentType: "text/plain; charset=utf-8", bytes: 10,
                    sha256: "f3877e8a3d98f809d9f844060fbea2864a4b66980a22ff22297014d0c168db2e"),
                SinkPart(
                    name: "nothing", filename: #"zero "bytes".txt"#, contentType: "application/octet-stream",
                    bytes: 0, sha256: empty),
            ])
    }
}
