import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The unread bytes of a stream past those it keeps in memory, when its producer does not pause
/// (FoundationNetworking cannot): a temporary file without a name (removed from its folder once it is open, so that
/// nothing is left behind, even by a crash), written at its end, read from its start, and emptied each time the
/// reader catches up.
struct SpillFile: Sendable {
    private let descriptor: Int32
    private var written: Int64 = 0
    private var read: Int64 = 0

    /// The bytes written and not read yet.
    var unread: Int { Int(written - read) }

    /// A new empty file in the temporary folder; `nil` when none can be made there.
    init?() {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-stream-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        unlink(path)
        self.descriptor = descriptor
    }

    /// Writes `data` after the bytes written so far.
    mutating func append(_ data: Data) throws {
        let start = written
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard let base = bytes.baseAddress else { return }
            var done = 0
            while done < bytes.count {
                let count = pwrite(descriptor, base + done, bytes.count - done, off_t(start) + off_t(done))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw Self.lastError() }
                done += count
            }
        }
        written += Int64(data.count)
    }

    /// Reads up to `limit` of the unread bytes, the oldest first.
    mutating func take(upTo limit: Int) throws -> Data {
        let length = min(limit, unread)
        var data = Data(count: length)
        let start = read
        try data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            guard let base = bytes.baseAddress else { return }
            var done = 0
            while done < length {
                let count = pread(descriptor, base + done, length - done, off_t(start) + off_t(done))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw Self.lastError() }
                done += count
            }
        }
        read += Int64(length)
        if read == written {
            // The reader caught up: the file starts again, and gives its disk space back.
            _ = ftruncate(descriptor, 0)
            read = 0
            written = 0
        }
        return data
    }

    /// Closes the file, which frees its space.
    func remove() {
        _ = close(descriptor)
    }

    private static func lastError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
