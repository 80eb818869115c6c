import Courier
import Foundation
import Testing

/// Dates in every style and placement: proleptic Gregorian ISO 8601 text, checked ranges, no traps.
@Suite struct DateEncodingTests {
    typealias DateStyle = ParameterEncodingOptions.DateStyle

    /// Where the date goes.
    enum Placement: Sendable {
        case query, form, json

        func encoding(_ options: ParameterEncodingOptions) -> ParameterEncoding {
            switch self {
            case .query: .query(options)
            case .form: .form(options)
            case .json: .json(options)
            }
        }
    }

    /// Builds `{"at": date}` with `style` and `placement`.
    static func request(
        _ date: Date,
        style: DateStyle,
        placement: Placement
    ) throws -> APIRequest {
        let endpoint = POST<Date>(
            wrappedValue: .init { ["at": $0] },
            "/d",
            encoding: placement.encoding(.init(dates: style))
        )
        return try endpoint.makeRequest(with: date, using: testConfiguration)
    }

    /// The text the request carries for `at`: the query item, the form pair or the JSON member.
    static func sentText(_ request: APIRequest, _ placement: Placement) throws -> String? {
        switch placement {
        case .query:
            return request.queryItems.first { $0.name == "at" }?.value
        case .form:
            var components = URLComponents()
            components.percentEncodedQuery = request.bodyText?.replacingOccurrences(of: "+", with: "%20")
            return components.queryItems?.first { $0.name == "at" }?.value
        case .json:
            let data = try #require(request.bodyText?.data(using: .utf8))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return object["at"].map { "\($0)" }
        }
    }

    static let placements: [Placement] = [.query, .form, .json]

    /// (seconds since 1970, style): dates that a style cannot write.
    static let unwritable: [(Double, DateStyle)] = [
        (.nan, .millisecondsSince1970), (.infinity, .millisecondsSince1970), (-.infinity, .millisecondsSince1970),
        (1e17, .millisecondsSince1970), (-1e17, .millisecondsSince1970), (1e300, .millisecondsSince1970),
        (.nan, .secondsSince1970), (.infinity, .secondsSince1970), (-.infinity, .secondsSince1970),
        (9.3e18, .secondsSince1970), (-9.3e18, .secondsSince1970), (1e300, .secondsSince1970),
        (.nan, .iso8601), (.infinity, .iso8601), (-.infinity, .iso8601), (1e15, .iso8601), (-1e15, .iso8601),
        (253_402_300_800, .iso8601), (-62_167_219_201, .iso8601), (1e300, .iso8601),
        (.nan, .iso8601WithFractionalSeconds), (.infinity, .iso8601WithFractionalSeconds),
        (253_402_300_799.9996, .iso8601WithFractionalSeconds), (-62_167_219_200.0006, .iso8601WithFractionalSeconds),
    ]

    @Test(arguments: unwritable, placements)
    func datesOutsideTheStylesRangeAreAnEncodingError(
        date: (seconds: Double, style: DateStyle),
        placement: Placement
    ) throws {
        let error = try #require(
            buildError {
                try Self.request(Date(timeIntervalSince1970: date.seconds), style: date.style, placement: placement)
            })
        #expect(error.reason == .invalidRequest(.unencodableParameters))
        #expect(error.underlyingError is EncodingError)
        #expect(error.description == "POST /d: the parameters could not be encoded")
    }

    /// (seconds since 1970, `.iso8601`, `.iso8601WithFractionalSeconds`): proleptic Gregorian, UTC.
    static let isoCases: [(Double, String, String)] = [
        (0, "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"),
        (-62_135_596_800, "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"),
        (-62_167_219_200, "0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z"),
        (-12_219_292_801, "1582-10-14T23:59:59Z", "1582-10-14T23:59:59.000Z"),
        (-12_219_292_800, "1582-10-15T00:00:00Z", "1582-10-15T00:00:00.000Z"),
        (951_782_400, "2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59Z", "1969-12-31T23:59:59.000Z"),
        (-0.5, "1969-12-31T23:59:59Z", "1969-12-31T23:59:59.500Z"),
        // Milliseconds are rounded to the nearest (1714979289.123 is 1714979289.12299990654 as a Double);
        // whole seconds are truncated.
        (1_714_979_289.123, "2024-05-06T07:08:09Z", "2024-05-06T07:08:09.123Z"),
        (0.9996, "1970-01-01T00:00:00Z", "1970-01-01T00:00:01.000Z"),
        (253_402_300_799.999, "9999-12-31T23:59:59Z", "9999-12-31T23:59:59.999Z"),
        (Date.distantPast.timeIntervalSince1970, "0000-12-30T00:00:00Z", "0000-12-30T00:00:00.000Z"),
        (Date.distantFuture.timeIntervalSince1970, "4001-01-01T00:00:00Z", "4001-01-01T00:00:00.000Z"),
    ]

    @Test(arguments: isoCases, placements)
    func isoDatesAreProlepticGregorian(
        date: (seconds: Double, iso: String, fractional: String),
        placement: Placement
    ) throws {
        let at = Date(timeIntervalSince1970: date.seconds)
        let iso = try Self.request(at, style: .iso8601, placement: placement)
        #expect(try Self.sentText(iso, placement) == date.iso)
        let fractional = try Self.request(at, style: .iso8601WithFractionalSeconds, placement: placement)
        #expect(try Self.sentText(fractional, placement) == date.fractional)
    }

    /// (seconds since 1970, style, text)
    static let epochCases: [(Double, DateStyle, String)] = [
        (1e17, .secondsSince1970, "100000000000000000"),
        (-62_135_596_800, .secondsSince1970, "-62135596800"),
        (1.5, .secondsSince1970, "1.5"),
        (9.2e15, .millisecondsSince1970, "9200000000000000000"),
        (-0.5, .millisecondsSince1970, "-500"),
        (1_714_979_289.123, .millisecondsSince1970, "1714979289123"),
    ]

    @Test(arguments: epochCases, placements)
    func epochNumbersCoverTheInt64Range(
        date: (seconds: Double, style: DateStyle, text: String),
        placement: Placement
    ) throws {
        let request = try Self.request(
            Date(timeIntervalSince1970: date.seconds), style: date.style, placement: placement)
        if placement == .json {
            #expect(request.bodyText == #"{"at":\#(date.text)}"#)
        } else {
            #expect(try Self.sentText(request, placement) == date.text)
        }
    }

    struct Event: Encodable, Sendable {
        let at: Date
    }

    @Test(arguments: isoCases)
    func theDefaultEncoderWritesProlepticGregorianDates(date: (seconds: Double, iso: String, fractional: String)) throws
    {
        let endpoint = POST<Event>(wrappedValue: .init { $0 }, "/events")
        let request = try endpoint.makeRequest(
            with: Event(at: Date(timeIntervalSince1970: date.seconds)), using: testConfiguration)
        #expect(request.bodyText == #"{"at":"\#(date.iso)"}"#)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e15, -1e15, 253_402_300_800, -62_167_219_201])
    func theDefaultEncoderRejectsDatesOutsideYears0000To9999(seconds: Double) throws {
        let endpoint = POST<Event>(wrappedValue: .init { $0 }, "/events")
        let error = try #require(
            buildError {
                try endpoint.makeRequest(
                    with: Event(at: Date(timeIntervalSince1970: seconds)), using: testConfiguration)
            })
        #expect(error.reason == .invalidRequest(.unencodableParameters))
        #expect(error.underlyingError is EncodingError)
    }

    @Test func aPathDateOutsideTheRangeIsAnError() throws {
        let endpoint = GET<Date>(wrappedValue: .init { ["day": $0] }, "/days/{day}")
        let error = try #require(
            buildError { try endpoint.makeRequest(with: Date(timeIntervalSince1970: .nan), using: testConfiguration) })
        #expect(error.reason == .invalidRequest(.unencodableParameters))
    }
}
