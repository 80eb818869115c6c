/// What a call did provide when a path placeholder got no value: the names no placeholder used, and the
/// one that looks like the missing name (`petId` for `{petID}`). The ``APIError/underlyingError`` of a
/// ``APIError/RequestProblem/missingPathValue(name:)`` failure; its text ends the error's description.
struct MissingPathValueHint: Error, CustomStringConvertible {
    /// The named parameters that no placeholder took, in order.
    let unusedNames: [String]
    /// The unused name closest to the missing one, when one is close.
    let suggestion: String?

    /// A hint for `problem` when it is a missing path value and the call named other parameters; else `nil`.
    init?(_ problem: APIError.RequestProblem, parameters: Parameters, template: PathTemplate) {
        guard case .missingPathValue(let missing) = problem.kind else { return nil }
        let unused = parameters.providedNames.filter { !template.names.contains($0) }
        guard !unused.isEmpty else { return nil }
        var seen = Set<String>()
        unusedNames = unused.filter { seen.insert($0).inserted }
        suggestion = Self.closest(to: missing, in: unusedNames)
    }

    var description: String {
        let list = unusedNames.map { "'\($0)'" }.joined(separator: ", ")
        guard let suggestion else { return "unused parameters: \(list)" }
        return "did you mean '\(suggestion)'? unused parameters: \(list)"
    }

    /// The candidate that differs from `name` only in case, `_`/`-`, or by at most a third of its letters.
    static func closest(to name: String, in candidates: [String]) -> String? {
        func folded(_ text: String) -> [Character] {
            Array(text.lowercased().filter { $0 != "_" && $0 != "-" })
        }
        let target = folded(name)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(target, folded(candidate))
            if distance <= max(1, target.count / 3), distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// The Levenshtein distance between two short names.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, right) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension Parameters {
    /// The names of the named values that are set, in order (none for a list or a model).
    var providedNames: [String] {
        guard case .named(let named) = storage else { return [] }
        return named.compactMap { $0.1 == nil ? nil : $0.0 }
    }
}
