/// SplitMix64: small, fast, and the same sequence on every platform for a given seed.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// `true` with probability `1 / n`.
    mutating func oneIn(_ n: Int) -> Bool {
        below(n) == 0
    }

    mutating func pick<T>(_ values: [T]) -> T {
        values[below(values.count)]
    }

    mutating func bool() -> Bool {
        next() & 1 == 1
    }
}
