import RelayApp
import RelayProtocol
import XCTest

@testable import relay_central

/// `--trace` on the central: a line for each value written (before it goes) and each value
/// notified.
final class CentralTraceTests: XCTestCase {
    private func traces(_ actions: [CentralAction]) -> [TraceEvent] {
        actions.compactMap {
            if case .program(.report(.trace(.value(let event)))) = $0 { return event } else { return nil }
        }
    }

    func testWrittenAndNotifiedValuesAreTraced() throws {
        var settings = CentralSettings()
        settings.trace = TraceReports(limit: nil)
        settings.delivery.protocolVersion = 1
        var harness = SessionHarness(settings: settings)
        harness.powerOn()
        harness.connectReady()
        let write = harness.command(.write(value: 5)).actions
        let written = traces(write)
        XCTAssertEqual(written.map(\.meaning), ["counter 5"])
        XCTAssertEqual(written.first?.characteristic, .write)
        XCTAssertEqual(written.first?.direction, .outgoing)
        XCTAssertEqual(written.first?.peer, SessionHarness.peerName)
        let traceIndex = write.firstIndex {
            if case .program(.report(.trace)) = $0 { return true } else { return false }
        }
        let writeIndex = write.firstIndex { if case .send = $0 { return true } else { return false } }
        XCTAssertLessThan(try XCTUnwrap(traceIndex), try XCTUnwrap(writeIndex), "traced as it goes")
        let notified = traces(harness.feed(.valueChanged(SessionHarness.notifyID, [9, 0, 0, 0]), at: 1))
        XCTAssertEqual(notified.map(\.meaning), ["counter 9"])
        XCTAssertEqual(notified.first?.characteristic, .notify)
        XCTAssertEqual(notified.first?.direction, .incoming)
    }

    func testAValueWrittenAgainAfterAFullSocketIsTracedOnce() {
        var settings = CentralSettings()
        settings.trace = TraceReports(limit: nil)
        settings.delivery.protocolVersion = 1
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        XCTAssertEqual(traces(harness.command(.write(value: 5)).actions).count, 1)
        harness.feed(.sendFinished(.full))
        let again = harness.feed(.carrierWritable(.gatt(SessionHarness.writeID, .socket)))
        XCTAssertEqual(SessionHarness.writes(again), [Counter(5).encoded])
        XCTAssertEqual(traces(again), [], "the value was traced when it was first handed over")
    }
}
