import Foundation

/// Reads RFC 3339 / ISO 8601 date-times (`2024-05-06T07:08:09Z`, `…09.123+02:00`) in the proleptic Gregorian
/// calendar, as Courier writes them: Foundation's `.iso8601` strategy reads years before 1582 in the Julian
/// calendar, so `0001-01-01T00:00:00Z` would come back two days off.
enum ISO8601Parser {
    /// The default `JSONDecoder`'s date strategy: a string in the form above, else a `DecodingError`.
    static let jsonDecodingStrategy = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = date(from: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Expected an ISO 8601 date-time such as 2024-05-06T07:08:09Z")
        }
        return date
    }

    /// The date `text` names: `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds, then `Z` or `±HH:MM` (or
    /// `±HHMM`); `T` and `Z` in either case. `nil` for anything else, including impossible fields (month 13,
    /// 30 February, hour 24).
    static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<count {
                let digit = Int(bytes[index + offset]) - 48
                guard digit >= 0, digit <= 9 else { return nil }
                value = value * 10 + digit
            }
            index += count
            return value
        }
        func expect(_ characters: UInt8...) -> Bool {
            guard index < bytes.count, characters.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t")), let hour = number(2),
            expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")), let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= ProlepticGregorian.daysIn(month: month, year: year), hour < 24,
            minute < 60,
            second < 60
        else { return nil }

        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }

        var offsetSeconds = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2) else { return nil }
            _ = expect(UInt8(ascii: ":"))
            guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }

        let days = ProlepticGregorian.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
