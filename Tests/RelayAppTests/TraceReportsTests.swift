import RelayApp
import RelayBlueZ
import RelayCLI
import RelayProtocol
import XCTest

/// `--trace`: one line per value, at most 20 a second on a terminal, then a summary.
final class TraceReportsTests: XCTestCase {
    private let central = PeerName(.central, BluetoothAddress("00:AA:01:01:00:01"))

    private func values(_ events: [TraceOutput]) -> [TraceEvent] {
        events.compactMap { if case .value(let event) = $0 { return event } else { return nil } }
    }

    func testALineSaysTimeDirectionCharacteristicLengthBytesAndMeaning() {
        var reports = TraceReports(limit: TraceReports.humanLimit)
        _ = reports.trace([0x2a, 0, 0, 0], .outgoing, on: .notify, peer: nil, at: 100)
        let hello: [UInt8] = [
            0xb2, 0x01, 0x02, 0x00, 0x4d, 0x3c, 0x2b, 0x1a, 0x00, 0xaa, 0x01, 0x01, 0x00, 0x01, 0x00, 0x80, 0, 0, 0, 0,
        ]
        let events = reports.trace(hello, .incoming, on: .session, peer: central, at: 101.0625)
        XCTAssertEqual(
            events.map(\.humanDescription),
            [
                "trace +1.063 s in session from central 00:AA:01:01:00:01 20 bytes b2 01 02 00 4d 3c 2b 1a 00 aa 01 01 "
                    + "00 01 00 80 00 00 00 00: hello v2 token 0x1a2b3c4d address 00:AA:01:01:00:01 window 32768 next 0"
            ])
        let long = reports.trace([UInt8](repeating: 0xee, count: 40), .outgoing, on: .write, peer: nil, at: 102)
        XCTAssertTrue(
            long[0].humanDescription.contains(String(repeating: "ee ", count: 31) + "ee (+8 bytes): not a relay value"),
            long[0].humanDescription)
        let json = JSONValue.object(long[0].fields).encoded
        XCTAssertTrue(
            json.hasPrefix(#"{"direction":"out","characteristic":"write","peer":null,"length":40,"hex":"eeee"#), json)
    }

    func testAtMostTwentyLinesASecondThenOneSummaryAtTheEndOfThatSecond() {
        var reports = TraceReports(limit: 20)
        var shown = 0
        for index in 0..<50 {
            shown +=
                values(reports.trace([1, 0, 0, 0], .incoming, on: .write, peer: nil, at: 10 + Double(index) * 0.01))
                .count
        }
        XCTAssertEqual(shown, 20)
        XCTAssertEqual(reports.flushDeadline, 11)
        XCTAssertEqual(reports.flush(at: 10.9), [], "not before the second is over")
        XCTAssertEqual(reports.flush(at: 11), [.summary(TraceSummary(leftOut: 30))])
        XCTAssertEqual(
            TraceSummary(leftOut: 30).humanDescription, "trace: 30 more values not shown (at most 20 lines a second)")
        XCTAssertNil(reports.flushDeadline)
        XCTAssertEqual(values(reports.trace([1, 0, 0, 0], .incoming, on: .write, peer: nil, at: 11.5)).count, 1)
    }

    func testASummaryDueBeforeTheNextLineComesFirst() {
        var reports = TraceReports(limit: 1)
        _ = reports.trace([1, 0, 0, 0], .incoming, on: .write, peer: nil, at: 0)
        _ = reports.trace([2, 0, 0, 0], .incoming, on: .write, peer: nil, at: 0.5)
        let next = reports.trace([3, 0, 0, 0], .incoming, on: .write, peer: nil, at: 2)
        XCTAssertEqual(next.first, .summary(TraceSummary(leftOut: 1)))
        XCTAssertEqual(values(next).map(\.meaning), ["counter 3"])
    }

    func testWithJSONEveryValueIsAnEvent() {
        var reports = TraceReports(limit: nil)
        let shown = (0..<100).flatMap { _ in reports.trace([1, 0, 0, 0], .incoming, on: .write, peer: nil, at: 1) }
        XCTAssertEqual(values(shown).count, 100)
        XCTAssertNil(reports.flushDeadline)
    }
}
