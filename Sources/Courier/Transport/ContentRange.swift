import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The first byte position of a `Content-Range: bytes first-last/total` header, and the total when known.
struct ContentRange {
    let start: Int64
    let total: Int64?

    init?(_ header: String?) {
        guard let header else { return nil }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard let range = parts.first, let dash = range.firstIndex(of: "-"),
            let start = Int64(range[..<dash].trimmingCharacters(in: .whitespaces)), start >= 0
        else { return nil }
        self.start = start
        self.total = parts.count == 2 ? Int64(parts[1].trimmingCharacters(in: .whitespaces)) : nil
    }
}
