import Foundation

/// SHA-256 (FIPS 180-4), for cache keys and file names: they must not show credentials or URLs in clear,
/// and the root package has no dependencies (CryptoKit is Apple-only). Not used for anything secret.
struct SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var block: [UInt8] = []
    private var length: UInt64 = 0

    init() {
        block.reserveCapacity(64)
    }

    /// Adds bytes to the message.
    mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        length &+= UInt64(bytes.count)
        var index = 0
        while index < bytes.count {
            let take = min(64 - block.count, bytes.count - index)
            block.append(contentsOf: bytes[index..<(index + take)])
            index += take
            if block.count == 64 {
                compress()
                block.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Adds the bytes of `data` to the message.
    mutating func update(_ data: Data) {
        data.withUnsafeBytes { raw in update(raw.bindMemory(to: UInt8.self)) }
    }

    /// Adds a string's UTF-8 bytes and a separator that no UTF-8 text contains, so that `("ab", "c")` and
    /// `("a", "bc")` hash differently.
    mutating func update(field: String) {
        var field = field
        field.withUTF8 { update($0) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { separator in
            separator[0] = 0xFF
            update(UnsafeBufferPointer(separator))
        }
    }

    /// The digest as 64 lowercase hexadecimal characters.
    mutating func finalizeHex() -> String {
        pad()
        let words = state
        return String(unsafeUninitializedCapacity: 64) { text in
            let digits: StaticString = "0123456789abcdef"
            var index = 0
            // The state is a tuple of eight UInt32, laid out one after the other.
            withUnsafeBytes(of: words) { raw in
                for offset in stride(from: 0, to: 32, by: 4) {
                    let word = raw.load(fromByteOffset: offset, as: UInt32.self)
                    for shift in stride(from: 28, through: 0, by: -4) {
                        text[index] = digits.utf8Start[Int((word >> UInt32(shift)) & 0x0F)]
                        index += 1
                    }
                }
            }
            return 64
        }
    }

    /// The 32-byte digest.
    mutating func finalize() -> [UInt8] {
        pad()
        var digest = [UInt8]()
        digest.reserveCapacity(32)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Appends the padding and the length, and compresses the last block(s).
    private mutating func pad() {
        let bitLength = length &* 8
        block.append(0x80)
        if block.count > 56 {
            while block.count < 64 { block.append(0) }
            compress()
            block.removeAll(keepingCapacity: true)
        }
        while block.count < 56 { block.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            block.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        compress()
        block.removeAll(keepingCapacity: true)
    }

    /// The hexadecimal digest of one string.
    static func hex(_ text: String) -> String {
        var hasher = SHA256()
        var text = text
        text.withUTF8 { hasher.update($0) }
        return hasher.finalizeHex()
    }

    private mutating func compress() {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for index in 0..<16 {
                let base = index * 4
                schedule[index] =
                    UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16 | UInt32(block[base + 2]) << 8
                    | UInt32(block[base + 3])
            }
            for index in 16..<64 {
                let w15 = schedule[index - 15]
                let w2 = schedule[index - 2]
                let s0 = w15.rotatedRight(7) ^ w15.rotatedRight(18) ^ (w15 >> 3)
                let s1 = w2.rotatedRight(17) ^ w2.rotatedRight(19) ^ (w2 >> 10)
                schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            for index in 0..<64 {
                let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ s1 &+ choice &+ Self.roundConstants[index] &+ schedule[index]
                let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = s0 &+ majority
                h = g
                g = f
                f = e
                e = d &+ temp1
                d = c
                c = b
                b = a
                a = temp1 &+ temp2
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g,
                state.7 &+ h
            )
        }
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}
