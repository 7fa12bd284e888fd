import XCTest

@testable import RelayCLI

final class ValueParserTests: XCTestCase {
    private func message(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testUInt32AcceptsTheWholeRange() throws {
        XCTAssertEqual(try ValueParser.uint32("0", "N"), 0)
        XCTAssertEqual(try ValueParser.uint32("4294967295", "N"), UInt32.max)
        XCTAssertEqual(try ValueParser.uint32("007", "N"), 7)
    }

    func testUInt32RejectsHugeNegativeAndNonNumericWithOneClearLine() {
        XCTAssertEqual(
            message { try ValueParser.uint32("4294967296", "N", command: "notify") },
            "notify: N is out of range (expected a whole number from 0 to 4294967295, got '4294967296')")
        XCTAssertEqual(
            message { try ValueParser.uint32("99999999999999999999999999", "N") },
            "N is out of range (expected a whole number from 0 to 4294967295, got '99999999999999999999999999')")
        XCTAssertEqual(
            message { try ValueParser.uint32("-1", "N", command: "write") },
            "write: N must not be negative (expected a whole number from 0 to 4294967295, got '-1')")
        XCTAssertEqual(
            message { try ValueParser.uint32("abc", "N") },
            "N must be a whole number from 0 to 4294967295, not 'abc'")
        for bad in ["", "+1", " 1", "1 ", "0x10", "1e3", "1.0", "١٢", "-", "--1"] {
            XCTAssertNotNil(message { try ValueParser.uint32(bad, "N") }, "accepted '\(bad)'")
        }
        let long = String(repeating: "9", count: 100_000)
        let text = message { try ValueParser.uint32(long, "N") } ?? ""
        XCTAssertLessThan(text.count, 200, "the message quotes the whole huge input")
    }

    func testIntegerRange() {
        XCTAssertEqual(try ValueParser.integer("3", "INDEX", range: 0...9), 3)
        XCTAssertNotNil(message { try ValueParser.integer("10", "INDEX", range: 0...9) })
    }

    func testSecondsArePlainPositiveDecimalsWithinBounds() throws {
        XCTAssertEqual(try ValueParser.seconds("2", "S"), 2)
        XCTAssertEqual(try ValueParser.seconds("0.25", "S"), 0.25)
        XCTAssertEqual(try ValueParser.seconds(".5", "S"), 0.5)
        XCTAssertEqual(try ValueParser.seconds("86400", "S"), 86_400)
        XCTAssertEqual(try ValueParser.seconds("0", "S", allowZero: true), 0)
        XCTAssertEqual(
            message { try ValueParser.seconds("0", "SECONDS", command: "wait") },
            "wait: SECONDS is out of range (expected a number of seconds greater than 0 up to 86400, got '0')")
        XCTAssertEqual(
            message { try ValueParser.seconds("-1", "SECONDS", command: "wait") },
            "wait: SECONDS must not be negative (expected a number of seconds greater than 0 up to 86400, got '-1')")
        for bad in ["", ".", "1..2", "nan", "inf", "1e3", "0x1p3", "1e400", "abc", " 1", "86400.5", "1,5"] {
            XCTAssertNotNil(message { try ValueParser.seconds(bad, "S") }, "accepted '\(bad)'")
        }
    }
}
