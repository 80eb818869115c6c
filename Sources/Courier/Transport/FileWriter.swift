import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Writes a download's chunks to its file in blocks of up to 1 MiB: one system call per block instead of one per
/// network chunk (16 KiB with FoundationNetworking). Closing writes what is left, so a cancelled download keeps
/// every byte it received for a later resume.
final class FileWriter: Sendable {
    private static let blockBytes = 1 << 20

    private struct State {
        var handle: FileHandle?
        var pending = Data()
    }

    private let state: LockedBox<State>

    /// Opens `url` for writing after its first `offset` bytes, dropping any byte after them.
    init(_ url: URL, at offset: UInt64) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: offset)
        try handle.seekToEnd()
        var pending = Data()
        pending.reserveCapacity(Self.blockBytes)
        state = LockedBox(State(handle: handle, pending: pending))
    }

    func write(contentsOf data: Data) throws {
        try state.withLock { state in
            guard let handle = state.handle else { return }
            state.pending.append(data)
            if state.pending.count >= Self.blockBytes {
                try handle.write(contentsOf: state.pending)
                state.pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Writes what is left and closes the file; later calls do nothing.
    func close() throws {
        try state.withLock { state in
            guard let handle = state.handle else { return }
            state.handle = nil
            defer { state.pending = Data() }
            do {
                if !state.pending.isEmpty { try handle.write(contentsOf: state.pending) }
            } catch {
                try? handle.close()
                throw error
            }
            try handle.close()
        }
    }
}
