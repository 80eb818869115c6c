import Foundation
import Yams

/// A JSON or YAML value with its object keys in document order, so that generated code follows the order the
/// description lists things in.
enum JSONNode: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONNode])
    case object(Members)

    /// An object's members, in document order.
    struct Members: Sendable, Equatable {
        private(set) var keys: [String] = []
        private var values: [String: JSONNode] = [:]

        init() {}

        subscript(key: String) -> JSONNode? {
            get { values[key] }
            set {
                if values[key] == nil, newValue != nil { keys.append(key) }
                if newValue == nil { keys.removeAll { $0 == key } }
                values[key] = newValue
            }
        }

        /// The members as (key, value) pairs, in document order.
        var pairs: [(key: String, value: JSONNode)] { keys.compactMap { key in values[key].map { (key, $0) } } }
    }

    subscript(key: String) -> JSONNode? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var array: [JSONNode]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    var members: Members? {
        if case .object(let members) = self { return members }
        return nil
    }

    var pairs: [(key: String, value: JSONNode)] { members?.pairs ?? [] }

    /// The deepest nesting a description may have; deeper input is rejected instead of recursing further.
    static let maximumDepth = 200
}

// MARK: - Parsing

extension JSONNode {
    /// Parses JSON or YAML text (JSON is read as YAML 1.2, of which it is a subset).
    static func parse(_ data: Data) throws(DescriptionError) -> JSONNode {
        guard let text = String(data: data, encoding: .utf8) else {
            throw DescriptionError("the description is not UTF-8 text")
        }
        let root: Yams.Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw DescriptionError("the description is neither JSON nor YAML: \(error)")
        }
        guard let root else { throw DescriptionError("the description is empty") }
        return try JSONNode(root, depth: 0)
    }

    private init(_ node: Yams.Node, depth: Int) throws(DescriptionError) {
        guard depth < Self.maximumDepth else {
            throw DescriptionError("the description nests deeper than \(Self.maximumDepth) levels")
        }
        switch node {
        case .scalar(let scalar):
            self = Self.scalar(scalar)
        case .sequence(let sequence):
            var elements: [JSONNode] = []
            for element in sequence { elements.append(try JSONNode(element, depth: depth + 1)) }
            self = .array(elements)
        case .mapping(let mapping):
            var members = Members()
            for (key, value) in mapping {
                guard case .scalar(let keyScalar) = key else { throw DescriptionError("an object key is not text") }
                members[keyScalar.string] = try JSONNode(value, depth: depth + 1)
            }
            self = .object(members)
        case .alias:
            throw DescriptionError("YAML aliases are not supported")
        }
    }

    private static func scalar(_ scalar: Yams.Node.Scalar) -> JSONNode {
        guard scalar.style == .plain else { return .string(scalar.string) }
        let text = scalar.string
        switch text {
        case "null", "Null", "NULL", "~", "": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let integer = Int64(text) { return .integer(integer) }
        if text.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true, let number = Double(text), number.isFinite
        {
            return .number(number)
        }
        return .string(text)
    }
}

// MARK: - Writing

extension JSONNode {
    /// The value as compact JSON, object keys in document order.
    var jsonText: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .number(let value):
            output += value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
        case .string(let text): output += Self.quoted(text)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, pair) in members.pairs.enumerated() {
                if index > 0 { output += "," }
                output += Self.quoted(pair.key) + ":"
                pair.value.write(to: &output)
            }
            output += "}"
        }
    }

    static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20: output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
