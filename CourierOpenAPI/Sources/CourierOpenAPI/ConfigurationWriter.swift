/// Writes `Configuration.swift`: the description's servers as base-URL constants and a configuration helper
/// that installs the auth plugin of each security scheme the description declares.
struct ConfigurationWriter {
    let description: OpenAPIDescription

    private struct Credential {
        var label: String
        var type: String
        var plugin: String
        var doc: String
    }

    func code(servers serversName: String) -> String {
        var code = "/// The servers \(JSONNode.quoted(description.title)) lists.\nenum \(serversName) {\n"
        var scope = NameScope()
        var first: String?
        for (index, server) in (description.root["servers"]?.array ?? []).enumerated() {
            guard var url = server["url"]?.string else { continue }
            for (variable, value) in server["variables"]?.pairs ?? [] {
                let fallback = value["default"]?.string ?? value["default"]?.jsonText ?? ""
                url = url.replacingOccurrences(of: "{\(variable)}", with: fallback)
            }
            let text = server["description"]?.string
            let name = scope.claim(text.map { SwiftNames.memberName($0) } ?? "server\(index + 1)")
            first = first ?? name
            code += ModelGenerator.docComment(text ?? url, indent: "    ")
            code += "    static let \(SwiftNames.escaped(name)) = \(JSONNode.quoted(url))\n"
        }
        if first == nil {
            code += "    /// The description lists no server: requests go to the same origin, `/`.\n"
            code += "    static let server1 = \"/\"\n"
        }
        code += "}\n\n"

        let credentials = credentials()
        let function = SwiftNames.memberName(description.title)
        code += "extension APIConfiguration {\n"
        code += ModelGenerator.docComment(
            "A configuration for \(description.title): its base URL and the credentials its security schemes take.",
            indent: "    ")
        if !credentials.isEmpty { code += "    ///\n    /// - Parameters:\n" }
        for credential in credentials { code += "    ///   - \(credential.label): \(credential.doc)\n" }
        var arguments = ["baseURL: String = \(serversName).\(SwiftNames.escaped(first ?? "server1"))"]
        arguments += credentials.map { "\($0.label): \($0.type)? = nil" }
        code += "    static func \(SwiftNames.escaped(function))(\n"
        code += arguments.map { "        \($0)" }.joined(separator: ",\n") + "\n    ) -> APIConfiguration {\n"
        if credentials.isEmpty {
            code += "        APIConfiguration(baseURL: URL(string: baseURL))\n    }\n}\n"
            return code
        }
        code += "        var plugins: [any APIPlugin] = []\n"
        for credential in credentials {
            let line = "        if let \(credential.label) { plugins.append(\(credential.plugin)) }\n"
            code +=
                line.count <= 121
                ? line
                : "        if let \(credential.label) {\n            plugins.append(\(credential.plugin))\n        }\n"
        }
        code += "        return APIConfiguration(baseURL: URL(string: baseURL), plugins: plugins)\n    }\n}\n"
        return code
    }

    private func credentials() -> [Credential] {
        var scope = NameScope(reserved: ["baseURL"])
        var credentials: [Credential] = []
        for (name, raw) in description.root["components"]?["securitySchemes"]?.pairs ?? [] {
            let scheme = description.resolve(raw)
            let base = SwiftNames.memberName(name)
            switch (scheme["type"]?.string, scheme["scheme"]?.string?.lowercased(), scheme["in"]?.string) {
            case ("http", "basic", _):
                let label = scope.claim(base)
                credentials.append(
                    Credential(
                        label: label, type: "(username: String, password: String)",
                        plugin: "AuthPlugin.basicAuth(username: \(label).username, password: \(label).password)",
                        doc: "HTTP basic credentials (`\(name)`)."))
            case ("apiKey", _, "header"):
                let label = scope.claim(base)
                let header = JSONNode.quoted(scheme["name"]?.string ?? name)
                credentials.append(
                    Credential(
                        label: label, type: "String", plugin: "AuthPlugin.apiKey(\(label), header: \(header))",
                        doc: "The API key sent in the \(header) header (`\(name)`)."))
            case ("apiKey", _, "query"):
                let label = scope.claim(base)
                let item = JSONNode.quoted(scheme["name"]?.string ?? name)
                credentials.append(
                    Credential(
                        label: label, type: "String", plugin: "AuthPlugin.apiKey(\(label), queryItem: \(item))",
                        doc: "The API key sent as the \(item) query item (`\(name)`)."))
            case ("http", "bearer", _), ("oauth2", _, _), ("openIdConnect", _, _):
                let label = scope.claim(base.hasSuffix("Token") ? base : base + "Token")
                credentials.append(
                    Credential(
                        label: label, type: "String", plugin: "AuthPlugin.bearer(\(label))",
                        doc: "The bearer token (`\(name)`)."))
            default:
                continue  // cookie API keys, mutual TLS: set up by hand
            }
        }
        return credentials
    }
}
