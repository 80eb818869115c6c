import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download that cannot continue as asked (a `206` for another range).
struct DownloadProblem: Error, CustomStringConvertible {
    let description: String
}
