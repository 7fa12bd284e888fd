import RelayApp
import RelayProtocol
import XCTest

@testable import relay_peripheral

/// `--trace` on the peripheral: a line for each value a central wrote, and for each value
/// bluetoothd took as a notification (not for one the socket refused).
final class PeripheralTraceTests: XCTestCase {
    private func traces(_ actions: [PeripheralAction]) -> [TraceEvent] {
        actions.compactMap {
            if case .program(.report(.trace(.value(let event)))) = $0 { return event } else { return nil }
        }
    }

    func testWrittenAndNotifiedValuesAreTracedWithTheirMeaning() throws {
        var settings = PeripheralSettings()
        settings.trace = TraceReports(limit: nil)
        var session = PeripheralSession.advertising(settings)
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)), at: 0)
        let written = session.handle(.written([0x2a, 0, 0, 0], from: centralA, mtu: nil), at: 1)
        XCTAssertEqual(traces(written).map(\.meaning), ["counter 42"])
        XCTAssertEqual(traces(written).first?.direction, .incoming)
        XCTAssertEqual(traces(written).first?.characteristic, .write)
        XCTAssertEqual(traces(written).first?.peer, PeerName(.central, centralA))
        guard case .program(.report(.trace)) = written.first else {
            return XCTFail("the trace comes first: \(written)")
        }

        let queued = try session.notify(value: 7, at: 2)
        XCTAssertTrue(traces(queued).isEmpty, "not traced before bluetoothd takes it")
        XCTAssertTrue(
            traces(session.handle(.sendFinished(.notification(.notify), .took(0, full: true, paced: true)), at: 2))
                .isEmpty, "refused: not on the air")
        XCTAssertTrue(
            traces(session.handle(.carrierWritable(.notification(.notify)), at: 2.2)).isEmpty, "offered again")
        let sent = session.handle(.sendFinished(.notification(.notify), .took(1, full: false, paced: true)), at: 2.5)
        XCTAssertEqual(traces(sent).map(\.meaning), ["counter 7"])
        XCTAssertEqual(traces(sent).first?.characteristic, .notify)
        XCTAssertEqual(traces(sent).first?.direction, .outgoing)
        XCTAssertEqual(traces(sent).first?.elapsed, 1.5)
    }

    func testWithoutTraceNothingIsAdded() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)), at: 0)
        let written = session.handle(.written([0x2a, 0, 0, 0], from: centralA, mtu: nil), at: 1)
        XCTAssertTrue(traces(written).isEmpty)
    }

    func testLeftOutLinesAreSummedUpWhenTheirSecondEnds() {
        var settings = PeripheralSettings()
        settings.trace = TraceReports(limit: 2)
        var session = PeripheralSession.advertising(settings)
        for index in 0..<5 {
            _ = session.handle(.written([UInt8(index), 0, 0, 0], from: centralA, mtu: nil), at: 1)
        }
        XCTAssertEqual(session.nextReassemblyDeadline, 2, "the summary is due when the second ends")
        let tick = session.handle(.tick, at: 2)
        XCTAssertTrue(tick.contains(.report(.trace(.summary(TraceSummary(leftOut: 3))))), "\(tick)")
    }
}
