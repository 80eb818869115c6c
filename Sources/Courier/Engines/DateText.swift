import Foundation

/// Dates as text, in every ``ParameterEncodingOptions/DateStyle``, with checked ranges.
///
/// ISO 8601 text is written in the proleptic Gregorian calendar (the calendar of ISO 8601 and RFC 3339,
/// also before 1582-10-15), in UTC, with a four-digit year: it covers `0000-01-01T00:00:00Z` up to
/// `9999-12-31T23:59:59.999Z`. Whole seconds are truncated; milliseconds are rounded to the nearest, as
/// `.millisecondsSince1970` does. Numbers since 1970 cover what an `Int64` holds. A date outside its
/// style's range, NaN or infinite, is an `EncodingError`: never clamped, never a trap.
enum DateText {
    /// `0000-01-01T00:00:00Z`, in seconds since 1970: the first instant ISO 8601 text can hold.
    static let firstISO8601Second: Int64 = -62_167_219_200
    /// `10000-01-01T00:00:00Z`, in seconds since 1970: the first instant past the range.
    static let endISO8601Second: Int64 = 253_402_300_800

    /// The text of `date` in `style`: a string for the ISO 8601 styles, a JSON-ready number otherwise.
    static func text(
        _ date: Date,
        style: ParameterEncodingOptions.DateStyle,
        codingPath: [any CodingKey] = []
    ) throws -> String {
        switch style {
        case .iso8601: try iso8601(date, milliseconds: false, codingPath: codingPath)
        case .iso8601WithFractionalSeconds: try iso8601(date, milliseconds: true, codingPath: codingPath)
        case .secondsSince1970: try secondsSince1970(date, codingPath: codingPath)
        case .millisecondsSince1970: try millisecondsSince1970(date, codingPath: codingPath)
        }
    }

    /// Seconds since 1970: an integer when whole, else the shortest `Double` text (`1.5`).
    static func secondsSince1970(_ date: Date, codingPath: [any CodingKey]) throws -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { throw invalid(date, codingPath, "is not a finite date") }
        guard seconds == seconds.rounded() else { return String(seconds) }
        guard let whole = Int64(exactly: seconds) else {
            throw invalid(date, codingPath, "is outside the range of whole seconds an Int64 holds")
        }
        return String(whole)
    }

    /// Whole milliseconds since 1970, rounded to the nearest.
    static func millisecondsSince1970(_ date: Date, codingPath: [any CodingKey]) throws -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { throw invalid(date, codingPath, "is not a finite date") }
        guard let milliseconds = Int64(exactly: (seconds * 1000).rounded()) else {
            throw invalid(date, codingPath, "is outside the range of milliseconds an Int64 holds")
        }
        return String(milliseconds)
    }

    /// `2024-05-06T07:08:09Z`, or `2024-05-06T07:08:09.123Z` with `milliseconds`.
    static func iso8601(_ date: Date, milliseconds: Bool, codingPath: [any CodingKey] = []) throws -> String {
        guard let instant = ISO8601Instant(date, milliseconds: milliseconds) else {
            throw invalid(date, codingPath, "is outside the years 0000–9999 that ISO 8601 text can hold")
        }
        return String(unsafeUninitializedCapacity: ISO8601Instant.maximumCount) { buffer in
            instant.write(to: buffer, milliseconds: milliseconds)
        }
    }

    /// The `JSONEncoder.DateEncodingStrategy` of ``APIConfiguration/makeDefaultEncoder()``: ISO 8601 text
    /// without fractions, proleptic Gregorian, an `EncodingError` outside years 0000–9999.
    static let jsonEncodingStrategy = JSONEncoder.DateEncodingStrategy.custom { date, encoder in
        let text = try iso8601(date, milliseconds: false, codingPath: encoder.codingPath)
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    private static func invalid(_ date: Date, _ codingPath: [any CodingKey], _ problem: String) -> EncodingError {
        // The number, not the date's description: that one needs a calendar even for NaN.
        EncodingError.invalidValue(
            date,
            EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "The date \(date.timeIntervalSince1970) seconds since 1970 \(problem)"
            )
        )
    }
}

/// A date broken into proleptic Gregorian fields, in UTC.
private struct ISO8601Instant {
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    static let maximumCount = 24

    var year = 0
    var month = 0
    var day = 0
    var secondOfDay = 0
    var millisecond = 0

    /// The fields of `date`, truncated to the second or rounded to the millisecond; `nil` outside
    /// years 0000–9999 (NaN and infinities included).
    init?(_ date: Date, milliseconds: Bool) {
        let interval = date.timeIntervalSince1970
        let seconds: Int64
        if milliseconds {
            let total = (interval * 1000).rounded()
            // Written so that NaN fails the comparison.
            guard total >= Double(DateText.firstISO8601Second) * 1000,
                total < Double(DateText.endISO8601Second) * 1000
            else { return nil }
            let whole = Int64(total)
            seconds = Self.floorDivide(whole, 1000)
            millisecond = Int(whole - seconds * 1000)
        } else {
            let total = interval.rounded(.down)
            guard total >= Double(DateText.firstISO8601Second), total < Double(DateText.endISO8601Second) else {
                return nil
            }
            seconds = Int64(total)
        }
        let days = Self.floorDivide(seconds, 86_400)
        secondOfDay = Int(seconds - days * 86_400)
        (year, month, day) = ProlepticGregorian.civil(fromDaysSince1970: Int(days))
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    /// Writes the text into `buffer` (at least ``maximumCount`` bytes) and returns its length.
    @discardableResult
    func write(to buffer: UnsafeMutableBufferPointer<UInt8>, milliseconds: Bool) -> Int {
        var index = 0
        func digits(_ value: Int, _ count: Int) {
            var value = value
            var position = index + count - 1
            while position >= index {
                buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
                value /= 10
                position -= 1
            }
            index += count
        }
        func put(_ character: Unicode.Scalar) {
            buffer[index] = UInt8(ascii: character)
            index += 1
        }
        digits(year, 4)
        put("-")
        digits(month, 2)
        put("-")
        digits(day, 2)
        put("T")
        digits(secondOfDay / 3_600, 2)
        put(":")
        digits(secondOfDay / 60 % 60, 2)
        put(":")
        digits(secondOfDay % 60, 2)
        if milliseconds {
            put(".")
            digits(millisecond, 3)
        }
        put("Z")
        return index
    }
}

/// Calendar arithmetic for ISO 8601 dates: the proleptic Gregorian calendar (Gregorian rules extended before
/// 1582), in both directions, for the writer (``DateText``) and the reader (``ISO8601Parser``).
enum ProlepticGregorian {
    /// Year, month and day of a day count from 1970-01-01 in the proleptic Gregorian calendar.
    ///
    /// The calendar repeats every 400 years (146,097 days). Counting from 0000-03-01 puts the leap day at
    /// the end of each year, so the day of the year gives the month with one linear formula
    /// (March–January months alternate 31/30 days in a 153-day five-month rhythm). After Howard Hinnant's
    /// `civil_from_days`.
    static func civil(fromDaysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let fromMarch0000 = days + 719_468  // 0000-03-01 is 719,468 days before 1970-01-01
        let era = (fromMarch0000 >= 0 ? fromMarch0000 : fromMarch0000 - 146_096) / 146_097
        let dayOfEra = fromMarch0000 - era * 146_097  // 0...146_096
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365, from March 1
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0 is March, 11 is February
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (years 0000–9999, so never negative before
    /// the division). Counting years from March puts the leap day last; a 153-day five-month rhythm gives
    /// the day of the year. After Howard Hinnant's `days_from_civil`.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension JSONEncoder {
    /// A copy of this encoder (formatting, key, data and float strategies, user info) that writes dates in
    /// `style`, as query strings do: the date style of an endpoint's own ``ParameterEncoding/json(_:)`` options.
    func writingDates(_ style: ParameterEncodingOptions.DateStyle) -> JSONEncoder {
        let copy = JSONEncoder()
        copy.outputFormatting = outputFormatting
        copy.keyEncodingStrategy = keyEncodingStrategy
        copy.dataEncodingStrategy = dataEncodingStrategy
        copy.nonConformingFloatEncodingStrategy = nonConformingFloatEncodingStrategy
        copy.userInfo = userInfo
        copy.dateEncodingStrategy = .custom { date, encoder in
            let text = try DateText.text(date, style: style, codingPath: encoder.codingPath)
            var container = encoder.singleValueContainer()
            switch style {
            case .iso8601, .iso8601WithFractionalSeconds:
                try container.encode(text)
            case .secondsSince1970, .millisecondsSince1970:
                // The text is a JSON number already (a whole number, or the shortest Double text).
                if let whole = Int64(text) {
                    try container.encode(whole)
                } else {
                    try container.encode(date.timeIntervalSince1970)
                }
            }
        }
        return copy
    }
}
