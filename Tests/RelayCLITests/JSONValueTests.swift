import XCTest

@testable import RelayCLI

final class JSONValueTests: XCTestCase {
    func testScalarsEncodeAsJSON() {
        XCTAssertEqual(JSONValue.null.encoded, "null")
        XCTAssertEqual(JSONValue.bool(true).encoded, "true")
        XCTAssertEqual(JSONValue.integer(-42).encoded, "-42")
        XCTAssertEqual(JSONValue.unsigned(UInt32.max).encoded, "4294967295")
        XCTAssertEqual(JSONValue.number(0.5).encoded, "0.5")
        XCTAssertEqual(JSONValue.number(3).encoded, "3")
        XCTAssertEqual(JSONValue.number(.nan).encoded, "null")
        XCTAssertEqual(JSONValue.number(-.infinity).encoded, "null")
    }

    func testStringEscapesQuotesBackslashesAndEveryControlCharacter() {
        XCTAssertEqual(JSONValue.string("a\"b\\c").encoded, #""a\"b\\c""#)
        XCTAssertEqual(JSONValue.string("\n\r\t\u{08}\u{0C}").encoded, #""\n\r\t\b\f""#)
        XCTAssertEqual(JSONValue.string("\u{00}\u{01}\u{1F}\u{7F}").encoded, #""\u0000\u0001\u001f\u007f""#)
        XCTAssertEqual(JSONValue.string("\u{2028}x\u{2029}").encoded, #""\u2028x\u2029""#)
        XCTAssertEqual(JSONValue.string("héllo ✓ 😀").encoded, "\"héllo ✓ 😀\"")
        for value: UInt8 in 0..<0x20 {
            let encoded = JSONValue.string(String(UnicodeScalar(value))).encoded
            XCTAssertTrue(encoded.hasPrefix("\"\\"), "control 0x\(String(value, radix: 16)) not escaped: \(encoded)")
        }
    }

    func testInvalidUTF8IsReplacedNotDropped() {
        let value = JSONValue.text(decoding: [0x61, 0xFF, 0x62, 0xC3])
        XCTAssertEqual(value.encoded, "\"a\u{FFFD}b\u{FFFD}\"")
    }

    func testObjectsKeepKeyOrderAndNest() {
        let value = JSONValue.object([
            ("event", "message"), ("length", 3), ("tags", .array(["a", nil, true])), ("inner", .object([("k", 1.5)])),
        ])
        XCTAssertEqual(value.encoded, #"{"event":"message","length":3,"tags":["a",null,true],"inner":{"k":1.5}}"#)
    }

    func testTimestampIsISO8601UTCWithMilliseconds() {
        XCTAssertEqual(Timestamp.format(seconds: 0, milliseconds: 7), "1970-01-01T00:00:00.007Z")
        XCTAssertEqual(Timestamp.format(seconds: 1_700_000_000, milliseconds: 123), "2023-11-14T22:13:20.123Z")
        let now = Timestamp.now()
        XCTAssertEqual(now.count, 24)
        XCTAssertTrue(now.hasSuffix("Z"))
    }
}
