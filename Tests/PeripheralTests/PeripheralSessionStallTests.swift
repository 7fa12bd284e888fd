import RelayProtocol
import XCTest

@testable import relay_peripheral

/// A central whose process dies mid-message may leave its link up: the partial message must
/// still be dropped and freed, driven by `.tick` (no real time passes in these tests).
final class PeripheralSessionStallTests: XCTestCase {
    let timeout = PeripheralSession.reassemblyIdleTimeout

    func testAStalledPartialMessageIsDroppedAfterTheIdleTimeoutAndTheNextMessageArrives() {
        var session = PeripheralSession.advertising()
        let message = Message(text: String(repeating: "stalled ", count: 60))
        let chunks = frames(of: message, mtu: 23)
        XCTAssertGreaterThan(chunks.count, 3)
        _ = session.handle(.written(chunks[0], from: centralA, mtu: nil), at: 100)
        _ = session.handle(.written(chunks[1], from: centralA, mtu: nil), at: 101)
        XCTAssertEqual(session.nextReassemblyDeadline, 101 + timeout, "counted from the last frame")
        XCTAssertEqual(session.handle(.tick, at: 101 + timeout / 2).events, [], "not stalled yet")
        XCTAssertNotNil(session.centrals[centralA]?.inbound.progress)

        let events = session.handle(.tick, at: 101 + timeout).events
        guard let drop = events.first?.drop, events.count == 1 else {
            return XCTFail("expected one dropped event, got \(events)")
        }
        let (from, received, total, reason) = (
            drop.from, drop.partial.received, drop.partial.total ?? -1, drop.reason.description
        )
        XCTAssertEqual(from, centralA)
        XCTAssertGreaterThan(received, 0)
        XCTAssertLessThan(received, total)
        XCTAssertLessThanOrEqual(received, chunks[0].count + chunks[1].count, "payload of the two frames")
        XCTAssertEqual(total, message.bytes.count)
        XCTAssertTrue(reason.contains("stalled"), reason)
        XCTAssertNil(session.centrals[centralA]?.inbound.progress, "the partial message is freed")
        XCTAssertNil(session.nextReassemblyDeadline)
        XCTAssertEqual(session.handle(.tick, at: 200).events, [], "dropped once")

        // The same central's next message arrives whole.
        var delivered: [PeripheralEvent] = []
        for (index, chunk) in frames(of: message, mtu: 23, id: 1).enumerated() {
            delivered += session.handle(.written(chunk, from: centralA, mtu: nil), at: 300 + Double(index)).events
        }
        XCTAssertEqual(delivered.map(\.name), ["message"])
        XCTAssertEqual(delivered.first?.messageReport?.text, message.text)
        XCTAssertNil(session.nextReassemblyDeadline, "a complete message leaves nothing to time out")
    }

    func testFramesKeepAMessageAliveAndCountersInBetweenDoNot() {
        var session = PeripheralSession.advertising()
        let message = Message(text: String(repeating: "slow ", count: 80))
        let chunks = frames(of: message, mtu: 23)
        var events: [PeripheralEvent] = []
        for (index, chunk) in chunks.enumerated() {
            let time = Double(index) * (timeout - 1)
            events += session.handle(.tick, at: time).events
            events += session.handle(.written(chunk, from: centralA, mtu: nil), at: time).events
        }
        XCTAssertEqual(events.map(\.name), ["connected", "message"], "a slow but steady message is not dropped")

        _ = session.handle(.written(frames(of: message, mtu: 23, id: 2)[0], from: centralA, mtu: nil), at: 1000)
        _ = session.handle(.written(Counter(5).encoded, from: centralA, mtu: nil), at: 1000 + timeout - 1)
        XCTAssertEqual(session.nextReassemblyDeadline, 1000 + timeout, "a counter is not a frame of the message")
        XCTAssertEqual(session.handle(.tick, at: 1000 + timeout).eventNames, ["dropped"])
    }

    func testOnlyTheStalledCentralLosesItsMessage() {
        var session = PeripheralSession.advertising()
        let message = Message(text: String(repeating: "two ", count: 100))
        let chunksA = frames(of: message, mtu: 23)
        let chunksB = frames(of: message, mtu: 23, id: 7)
        _ = session.handle(.written(chunksA[0], from: centralA, mtu: nil), at: 0)
        var events: [PeripheralEvent] = []
        for (index, chunk) in chunksB.enumerated() {
            let time = Double(index) * timeout / Double(chunksB.count)
            events += session.handle(.written(chunk, from: centralB, mtu: nil), at: time).events
            events += session.handle(.tick, at: time).events
        }
        events += session.handle(.tick, at: timeout).events
        let dropped = events.filter { $0.name == "dropped" }
        XCTAssertEqual(dropped.count, 1)
        XCTAssertEqual(dropped.first?.drop?.from, centralA)
        XCTAssertEqual(events.filter { $0.name == "message" }.count, 1, "B's message is intact")
        XCTAssertNotNil(session.centrals[centralA], "A is still connected as far as bluetoothd says")
    }

    func testDisconnectMidMessageReportsItDroppedOnceAndLeavesNoDeadline() {
        var session = PeripheralSession.advertising()
        let chunks = frames(of: Message(text: String(repeating: "gone ", count: 50)), mtu: 23)
        _ = session.handle(.written(chunks[0], from: centralA, mtu: nil), at: 0)
        XCTAssertEqual(session.handle(.disconnected(centralA)).eventNames, ["dropped", "disconnected"])
        XCTAssertNil(session.centrals[centralA])
        XCTAssertNil(session.nextReassemblyDeadline)
        XCTAssertEqual(session.handle(.tick, at: timeout * 2).events, [])
    }
}
