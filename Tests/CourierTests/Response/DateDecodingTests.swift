import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Default decoder: ISO 8601 dates")
struct DateDecodingTests {
    private struct Stamp: Codable, Equatable {
        var at: Date
    }

    private func decode(_ text: String) throws -> Date {
        let json = Data(#"{"at":"\#(text)"}"#.utf8)
        return try APIConfiguration.makeDefaultDecoder().decode(Stamp.self, from: json).at
    }

    @Test(
        "Date-times are read in the proleptic Gregorian calendar, with fractions and offsets",
        arguments: [
            ("1970-01-01T00:00:00Z", 0.0),
            ("2024-05-06T07:08:09Z", 1_714_979_289),
            ("2024-05-06t07:08:09z", 1_714_979_289),
            ("2024-05-06T07:08:09.123Z", 1_714_979_289.123),
            ("2024-05-06T09:08:09+02:00", 1_714_979_289),
            ("2024-05-06T02:38:09-0430", 1_714_979_289),
            ("0001-01-01T00:00:00Z", -62_135_596_800),
            ("1582-10-04T00:00:00Z", -12_220_243_200),
            ("0000-03-01T00:00:00Z", -62_162_035_200),
            ("2000-02-29T23:59:59Z", 951_868_799),
            ("9999-12-31T23:59:59Z", 253_402_300_799),
        ])
    func reads(text: String, seconds: Double) throws {
        let date = try decode(text)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_5, "\(text) → \(date.timeIntervalSince1970)")
    }

    @Test(
        "Anything else is a decoding error, not a guess",
        arguments: [
            "", "2024-05-06", "2024-05-06T07:08:09", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2024-05-06T24:00:00Z", "2024-05-06T07:60:00Z",
            "2024-05-06T07:08:60Z", "2024-05-06T07:08:09.Z", "2024-05-06T07:08:09+2:00", "2024-05-06T07:08:09Zjunk",
            "24-05-06T07:08:09Z", "2024-05-06 07:08:09Z", "２０２４-05-06T07:08:09Z",
        ])
    func rejects(text: String) {
        #expect(throws: DecodingError.self) { try decode(text) }
    }

    @Test("What the default encoder writes, the default decoder reads back, before 1582 too")
    func roundTrip() throws {
        let encoder = APIConfiguration.makeDefaultEncoder()
        let decoder = APIConfiguration.makeDefaultDecoder()
        for seconds in [-62_135_596_800.0, -12_220_243_200, -1, 0, 1_714_979_289, 253_402_300_799] {
            let stamp = Stamp(at: Date(timeIntervalSince1970: seconds))
            let back = try decoder.decode(Stamp.self, from: try encoder.encode(stamp))
            #expect(back == stamp, "\(seconds)")
        }
    }

    @Test("A call decodes dates with the configuration's decoder by default")
    func throughACall() async throws {
        let stub = StubExecutor().stubEverything(with: .json(#"{"at":"0001-01-01T00:00:00Z"}"#))
        let stamp: Stamp = try await GET<Void>("/stamp").request(
            using: APIConfiguration(baseURL: URL(string: "http://stub.example"), executor: stub))
        #expect(stamp.at.timeIntervalSince1970 == -62_135_596_800)
    }
}
