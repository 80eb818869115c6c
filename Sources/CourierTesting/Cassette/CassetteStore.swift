@_spi(CourierInternals) import Courier
import Foundation

/// The state a cassette and its copies share: the interactions read from the file, which of them were replayed,
/// and what the file holds now. One lock guards it, the file writes included (a cassette is test tooling: its
/// writes are small and rare).
final class CassetteStore: Sendable {
    enum Decision {
        case replay(Cassette.Interaction)
        case record
    }

    private struct State {
        var loaded = false
        /// Whether the file existed when it was first read.
        var existed = false
        /// The interactions read from the file, which replay.
        var recorded: [Cassette.Interaction] = []
        /// Which of ``recorded`` were replayed.
        var replayed: [Bool] = []
        /// What the file holds (or will hold): the archive read from it, its entries as they were read (written
        /// back unchanged, so that a diff of the file shows only new episodes), plus those recorded since.
        var archive = HAR([])
    }

    let file: URL
    let mode: Cassette.Mode
    /// Whether the mode was turned into `.none` because `CI` is set.
    let ciGuarded: Bool
    private let state = LockedBox(State())

    init(file: URL, mode: Cassette.Mode, ciGuarded: Bool) {
        self.file = file
        self.mode = mode
        self.ciGuarded = ciGuarded
    }

    /// Whether `key` (the request half of an interaction, masked) replays a recorded interaction or is recorded.
    /// - Throws: an ``APIError`` whose underlying error is a ``Cassette/Problem`` when it can do neither.
    func decide(for key: Cassette.Interaction, request: APIRequest, matching: Cassette.Matching) throws -> Decision {
        try state.withLock { state in
            if !state.loaded { try load(&state, for: request) }
            if mode == .all || (mode == .once && !state.existed) { return .record }
            var closest: (index: Int, closeness: Cassette.Matching.Closeness, text: String)?
            var alreadyReplayed = 0
            for (index, recorded) in state.recorded.enumerated() {
                guard let difference = matching.difference(key, request: request, recorded) else {
                    if state.replayed[index] {
                        alreadyReplayed += 1
                        continue
                    }
                    state.replayed[index] = true
                    return .replay(recorded)
                }
                // The closest, and of equally close ones the first recorded.
                if closest.map({ difference.closeness > $0.closeness }) ?? true {
                    closest = (index, difference.closeness, difference.text)
                }
            }
            if mode == .newEpisodes { return .record }
            throw APIError(
                .other, endpoint: request.endpoint, request: request,
                underlyingError: problem(
                    key, existed: state.existed, alreadyReplayed: alreadyReplayed,
                    closest: closest.map { (state.recorded[$0.index], $0.text) }))
        }
    }

    /// Appends `interaction` to the file.
    func save(_ interaction: Cassette.Interaction) throws {
        try state.withLock { state in
            state.archive.log.entries.append(HAR.Entry(interaction))
            let data = try state.archive.encoded()
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        }
    }

    private func load(_ state: inout State, for request: APIRequest) throws {
        state.loaded = true
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        state.existed = true
        guard mode != .all else { return }
        do {
            let archive = try HAR.decoded(from: Data(contentsOf: file))
            state.recorded = try archive.interactions
            state.archive = archive
        } catch {
            throw APIError(
                .other, endpoint: request.endpoint, request: request,
                underlyingError: Cassette.Problem("\(file.path) is not a HAR 1.2 cassette Courier reads: \(error)"))
        }
        state.replayed = Array(repeating: false, count: state.recorded.count)
    }

    private func problem(
        _ key: Cassette.Interaction, existed: Bool, alreadyReplayed: Int,
        closest: (interaction: Cassette.Interaction, difference: String)?
    ) -> Cassette.Problem {
        let request = "\(key.method) \(key.url)"
        let ci = ciGuarded ? " — recording is off because CI is set (pass recordsInCI: true to record there)" : ""
        guard existed else {
            return Cassette.Problem("no cassette at \(file.path) to answer \(request) — mode .\(mode)\(ci)")
        }
        if alreadyReplayed > 0 {
            return Cassette.Problem(
                "\(request) — its \(alreadyReplayed) matching interaction(s) in \(file.lastPathComponent) were "
                    + "already replayed (identical requests replay in recorded order, each once)\(ci)")
        }
        guard let closest else {
            return Cassette.Problem("\(file.lastPathComponent) holds no interaction to answer \(request)\(ci)")
        }
        let name = "\(closest.interaction.method) \(closest.interaction.url)"
        return Cassette.Problem(
            "no interaction in \(file.lastPathComponent) matches \(request) — the closest is \(name) — first "
                + "difference: \(closest.difference)\(ci)",
            closestInteraction: name, difference: closest.difference)
    }
}
