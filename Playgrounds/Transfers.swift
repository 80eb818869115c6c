// Transfers: bodies that are large, long-lived or open-ended. Uploads send raw bytes, files, streams and
// multipart forms without holding them in memory; downloads go to a file (resumable), streams hand the body
// over as it arrives (lines, Server-Sent Events), and progress is an AsyncSequence while a call runs.
import Courier
import CourierTesting
import Foundation

@MainActor
enum Transfers {
    /// httpbin's `/range/{n}`: n bytes, `Accept-Ranges: bytes`, an `ETag`, 206 for a `Range` request.
    @GET("/range/{n}")
    static var range: APIParameterBuilder<(n: Int, seconds: Int)>? = .init {
        ["n": $0.n, "duration": $0.seconds, "chunk_size": 1024]
    }

    /// httpbin's `/stream/{n}`: n lines of JSON, one per chunk.
    @GET("/stream/{n}")
    static var lines: APIParameterBuilder<Int>? = .init { ["n": $0] }

    /// httpbin's `/drip`: `numbytes` bytes spread over `duration` seconds.
    @GET("/drip")
    static var drip: APIParameterBuilder<(bytes: Int, seconds: Int)>? = .init {
        ["numbytes": $0.bytes, "duration": $0.seconds, "delay": 0]
    }

    /// httpbin's `/base64/{value}`: the decoded value as the body — here a whole event stream.
    @GET("/base64/{value}")
    static var text: APIParameterBuilder<String>? = .init { ["value": Data($0.utf8).base64EncodedString()] }

    @GET("/status/{code}")
    static var status: APIParameterBuilder<Int>? = .init { ["code": $0] }

    // Uploads. `Data` and file `URL` parameters are bodies: the bytes as they are, the file streamed from disk.
    @POST("/anything/notes/{id}")
    static var note: APIParameterBuilder<(id: Int, text: String)>? = .init {
        .body(
            .data(Data($0.text.utf8)), contentType: "text/plain; charset=utf-8",
            parameters: ["id": $0.id, "draft": true])
    }

    @PUT("/anything/backup")
    static var backup: APIParameterBuilder<URL>? = .init { $0 }

    // A multipart form from the same dictionary literal: text fields, and files from disk or memory.
    @POST("/post", encoding: .multipart)
    static var photo: APIParameterBuilder<(title: String, file: URL)>? = .init {
        [
            "title": $0.title, "tags": ["beach", "2024"],
            "photo": .file($0.file, contentType: "image/jpeg"),
            "thumbnail": .data(Data("tiny".utf8), filename: "thumb.txt", contentType: "text/plain"),
        ]
    }

    // Some names in the query string, the rest in the JSON body.
    @POST("/anything/search", encoding: .json.querying("version"))
    static var search: APIParameterBuilder<String>? = .init { ["version": 2, "text": $0] }
}

@MainActor
enum TransfersPage {
    static func run(_ stage: Stage) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-playground-transfers")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("range.bin")

        Console.step("Raw bytes as the body, with a content type and path/query values next to them")
        let note: Echo = try await Transfers.$note.request(with: (id: 7, text: "Buy milk"))
        Console.result("\(note.url ?? "") ← \(note.data ?? "") (\(note.header("Content-Type") ?? "?"))")

        Console.step(
            "A file URL parameter streams the file from disk (Content-Length: its size); `progress:` watches it")
        let file = folder.appendingPathComponent("backup.txt")
        try Data(String(repeating: "row\n", count: 1000).utf8).write(to: file)
        let sending = TransferProgress()
        let sendWatcher = Task {
            for await snapshot in sending where snapshot.isFinished {
                Console.note(
                    "progress: \(snapshot.sent) of \(snapshot.expectedToSend.map(String.init) ?? "?") bytes sent")
            }
        }
        let backup: Echo = try await Transfers.$backup.request(with: file, progress: sending)
        await sendWatcher.value
        Console.result("\(backup.method ?? "") received \(backup.data?.utf8.count ?? 0) bytes")

        Console.step("`encoding: .multipart`: fields and files streamed part by part (RFC 7578)")
        let photoFile = folder.appendingPathComponent("beach.jpg")
        try Data("not really a jpeg".utf8).write(to: photoFile)
        let form: UploadEcho = try await Transfers.$photo.request(with: (title: "Holidays", file: photoFile))
        Console.result("form: \(form.form.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
        Console.result("files: \(form.files.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")

        Console.step("`.json.querying(\"version\")`: POST /search?version=2 with the rest as the JSON body")
        let search: Echo = try await Transfers.$search.request(with: "lamp")
        Console.result("\(search.url ?? "") ← \(search.data ?? "")")

        Console.step("`download(with:to:progress:)` writes the body to a file; progress is an AsyncSequence")
        let progress = TransferProgress()
        let watcher = Task {
            var seen = 0
            for await snapshot in progress where snapshot.isFinished || seen < 2 {
                seen += 1
                Console.note(
                    "progress: \(snapshot.received) of \(snapshot.expectedToReceive.map(String.init) ?? "?") bytes")
            }
        }
        try await Transfers.$range.download(with: (n: 4096, seconds: 0), to: destination, progress: progress)
        await watcher.value
        Console.result("\(try Data(contentsOf: destination).count) bytes in \(destination.lastPathComponent)")

        Console.step("Cancel a slow download midway, then download again: it resumes with Range + If-Range")
        try FileManager.default.removeItem(at: destination)
        let slow = TransferProgress()
        let first = Task {
            try await Transfers.$range.download(with: (n: 8192, seconds: 2), to: destination, progress: slow)
        }
        for await snapshot in slow where snapshot.received >= 2048 { break }
        first.cancel()
        if case .failure(let error as APIError) = await first.result { Console.caught(error) }
        Console.note(
            "no file under the final name: \(FileManager.default.fileExists(atPath: destination.path) ? "wrong!" : "right")"
        )
        let resumed = try await Transfers.$range.download(with: (n: 8192, seconds: 2), to: destination)
        Console.result(
            "\(resumed.statusCode) \(resumed.headers["Content-Range"] ?? ""), \(try Data(contentsOf: destination).count) bytes in all"
        )

        Console.step("A failed download fails like every call, and writes nothing")
        do {
            try await Transfers.$status.download(with: 404, to: folder.appendingPathComponent("missing.bin"))
        } catch {
            Console.caught(error)
        }

        Console.step("`stream(with:)` hands the body over as it arrives; `.lines` splits it")
        for try await line in try await Transfers.$lines.stream(with: 3).lines {
            Console.result(Console.shorten(line, to: 60))
        }

        Console.step("`.events` parses Server-Sent Events: event, multi-line data, id, retry; comments ignored")
        let eventStream = ": a comment\nevent: greeting\ndata: hello\ndata: world\nid: 1\nretry: 3000\n\ndata: bye\n\n"
        for try await event in try await Transfers.$text.stream(with: eventStream).events {
            Console.result(
                "\(event.event): \(event.data.debugDescription) (id \(event.id ?? "-"), retry \(event.retry.map { "\($0)" } ?? "-"))"
            )
        }

        Console.step("An idle timeout bounds each wait for the next chunk; leaving the loop early cancels the transfer")
        do {
            for try await chunk in try await Transfers.$drip.stream(
                with: (bytes: 3, seconds: 6), idleTimeout: .seconds(1))
            {
                Console.result("\(chunk.count) byte(s)")
            }
        } catch {  // a loop throws APIError, as a call does
            Console.caught(error)
        }

        Console.step("In tests, a stub streams chunks after delays (CourierTesting)")
        let stub = StubExecutor().stub(
            Transfers.$lines, with: .chunked(["{\"a\":", "1}\n{\"a\":2}\n"], every: .milliseconds(50)))
        for try await line in try await Transfers.$lines.stream(
            with: 2, using: APIConfiguration.default.with { $0.executor = stub }
        ).lines {
            Console.result(line)
        }
    }
}

/// httpbin's echo of a multipart form: fields in `form` (a list when a name repeats), files in `files`.
struct UploadEcho: Decodable, Sendable {
    var form: [String: OneOrMany]
    var files: [String: String]
}
