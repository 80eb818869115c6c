import Foundation

/// The identity of a cached response.
///
/// The key is a SHA-256 digest of the method, the URL (without the query parameters the policy leaves
/// out), the body of a method that has one, the policy's extra parts and the request's credentials, so
/// neither the URL nor a credential appears in clear; the policy's ``CachePolicy/keyPrefix`` stands in
/// front of it, in clear, so that a group of entries can be cleared together.
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The policy's prefix, in clear (empty by default).
    public let prefix: String
    /// 64 hexadecimal characters: the digest of everything else.
    public let digest: String

    /// Creates a key; storages rebuild keys with it.
    public init(prefix: String = "", digest: String) {
        self.prefix = prefix
        self.digest = digest
    }

    /// The prefix followed by the digest.
    public var rawValue: String { prefix + digest }

    /// The prefix followed by the digest.
    public var description: String { rawValue }
}

/// A stored response: what a `CacheStorage` keeps for a `CacheKey`.
///
/// Its description and mirror show the key, status, size and dates, never header values or the body.
public struct CacheEntry: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The entry's key.
    public var key: CacheKey
    /// The response's status code.
    public var statusCode: Int
    /// The response's headers.
    public var headers: HTTPHeaders
    /// The response's body.
    public var body: Data
    /// The URL the response came from.
    public var url: URL?
    /// When the response was received (or last revalidated).
    public var storedAt: Date
    /// When it stops being fresh; `nil` for never.
    public var expiresAt: Date?
    /// The request header names the response varies on (its `Vary` header).
    public var varyNames: [HTTPHeaderName]
    /// A digest of the request's values for ``varyNames``; a request with other values does not match.
    public var varyDigest: String

    /// Creates an entry.
    public init(
        key: CacheKey,
        statusCode: Int,
        headers: HTTPHeaders,
        body: Data,
        url: URL?,
        storedAt: Date,
        expiresAt: Date?,
        varyNames: [HTTPHeaderName] = [],
        varyDigest: String = ""
    ) {
        self.key = key
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.varyNames = varyNames
        self.varyDigest = varyDigest
    }

    /// Whether the entry is fresh at `date`: it is stale from its expiry date on.
    func isFresh(at date: Date) -> Bool {
        guard let expiresAt else { return true }
        return date < expiresAt
    }

    /// The key, status, body size and dates; no header values, no body.
    public var description: String {
        "CacheEntry(key: \(key), status: \(statusCode), bytes: \(body.count), storedAt: \(storedAt), "
            + "expiresAt: \(expiresAt.map { "\($0)" } ?? "never"))"
    }

    /// The same fields as ``description``.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "key": key.rawValue, "statusCode": statusCode, "bytes": body.count, "storedAt": storedAt,
                "expiresAt": expiresAt as Any,
            ])
    }

    /// An estimate of the memory the entry takes, in bytes: what `MemoryCacheStorage` counts.
    public var cost: Int {
        var total = body.count + key.rawValue.utf8.count + varyDigest.utf8.count + 128
        for field in headers { total += field.name.rawValue.utf8.count + field.value.utf8.count + 32 }
        return total
    }
}

// MARK: - The on-disk form

/// Encodes and decodes entries for `DiskCacheStorage`: a magic number, length-prefixed fields and a
/// checksum over everything before it. Decoding checks every length against the bytes left, so a
/// truncated, foreign or garbage file decodes to `nil`, never a crash.
enum CacheEntryCoding {
    static let magic = Array("CRCACHE1".utf8)

    static func encode(_ entry: CacheEntry) -> Data {
        var writer = Writer()
        writer.bytes.append(contentsOf: magic)
        writer.string(entry.key.prefix)
        writer.string(entry.key.digest)
        writer.integer(UInt64(bitPattern: Int64(entry.statusCode)))
        // Redacted: a credential in the URL (user info, an API key in the query) does not go to disk.
        writer.string(entry.url.map(SensitiveData.redacted) ?? "")
        writer.integer(entry.storedAt.timeIntervalSince1970.bitPattern)
        writer.integer(entry.expiresAt == nil ? 0 : 1)
        writer.integer(entry.expiresAt?.timeIntervalSince1970.bitPattern ?? 0)
        writer.integer(UInt64(entry.headers.count))
        for field in entry.headers {
            writer.string(field.name.rawValue)
            writer.string(field.value)
        }
        writer.integer(UInt64(entry.varyNames.count))
        for name in entry.varyNames { writer.string(name.rawValue) }
        writer.string(entry.varyDigest)
        writer.integer(UInt64(entry.body.count))
        writer.bytes.append(contentsOf: entry.body)
        writer.integer(checksum(writer.bytes[...]))
        return Data(writer.bytes)
    }

    static func decode(_ data: Data) -> CacheEntry? {
        data.withUnsafeBytes { raw -> CacheEntry? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count >= magic.count + 8, bytes.prefix(magic.count).elementsEqual(magic) else { return nil }
            let end = bytes.count - 8
            var reader = Reader(bytes: bytes, position: magic.count, end: end)
            var trailer = Reader(bytes: bytes, position: end, end: bytes.count)
            guard let stored = trailer.integer(),
                stored == checksum(bytes[0..<end])
            else { return nil }
            return reader.entry()
        }
    }

    /// FNV-1a, 64 bits: detects torn and altered files (not an attacker, who could write a valid file).
    static func checksum<Bytes: Collection>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func integer(_ value: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }

        mutating func string(_ text: String) {
            integer(UInt64(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        let end: Int

        mutating func integer() -> UInt64? {
            guard end - position >= 8 else { return nil }
            var value: UInt64 = 0
            for index in position..<(position + 8) { value = value << 8 | UInt64(bytes[index]) }
            position += 8
            return value
        }

        mutating func count() -> Int? {
            guard let value = integer(), value <= UInt64(end - position) else { return nil }
            return Int(value)
        }

        mutating func slice() -> UnsafeBufferPointer<UInt8>.SubSequence? {
            guard let length = count() else { return nil }
            defer { position += length }
            return bytes[position..<(position + length)]
        }

        mutating func string() -> String? {
            slice().map { String(decoding: $0, as: UTF8.self) }
        }

        mutating func entry() -> CacheEntry? {
            guard let prefix = string(), let digest = string(), let status = integer(), let url = string(),
                let storedAt = integer(), let hasExpiry = integer(), let expiresAt = integer(),
                let headerCount = count()
            else { return nil }
            var headers = HTTPHeaders()
            for _ in 0..<headerCount {
                guard let name = string(), let value = string() else { return nil }
                headers.add(HTTPHeaderName(rawValue: name), value)
            }
            guard let varyCount = count() else { return nil }
            var varyNames: [HTTPHeaderName] = []
            for _ in 0..<varyCount {
                guard let name = string() else { return nil }
                varyNames.append(HTTPHeaderName(rawValue: name))
            }
            guard let varyDigest = string(), let body = slice(), position == end else { return nil }
            return CacheEntry(
                key: CacheKey(prefix: prefix, digest: digest),
                statusCode: Int(truncatingIfNeeded: Int64(bitPattern: status)),
                headers: headers,
                body: Data(body),
                url: url.isEmpty ? nil : URL(string: url),
                storedAt: Date(timeIntervalSince1970: Double(bitPattern: storedAt)),
                expiresAt: hasExpiry == 0 ? nil : Date(timeIntervalSince1970: Double(bitPattern: expiresAt)),
                varyNames: varyNames,
                varyDigest: varyDigest
            )
        }
    }
}
