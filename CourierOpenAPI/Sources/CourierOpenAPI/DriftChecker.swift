import Foundation

/// Placeholder until the checker lands.
public struct DriftChecker: Sendable {
    /// The description to check against.
    public let description: OpenAPIDescription
    /// A checker for `description`.
    public init(description: OpenAPIDescription) { self.description = description }
    /// What a check found.
    public struct Report: Sendable {
        /// Findings.
        public var findings: [String] = []
        /// Summary.
        public var summary: String { "" }
        /// Drift.
        public var hasDrift: Bool { false }
    }
    /// Checks.
    public func check(paths: [String], requireAll: Bool) throws -> Report { Report() }
}
