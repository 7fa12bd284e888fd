import RelayApp
import RelayEndpoint
import RelayProtocol
import XCTest

@testable import relay_peripheral

final class PeripheralSessionSendingTests: XCTestCase {
    func testMessagesAreChunkedForTheSmallestSubscribedMTU() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)))
        _ = session.handle(.connected(centralB))
        _ = session.handle(.mtu(centralB, MTU(100)!))
        XCTAssertEqual(
            session.sendingMTU, MTU(100),
            "B connected while notifications are on: bluetoothd would not say when it subscribes")
        _ = session.handle(.notifyStarted(from: centralB, mtu: MTU(100)))
        XCTAssertEqual(session.sendingMTU, MTU(100))

        let message = Message(binary: (0..<5000).map { UInt8(truncatingIfNeeded: $0) })
        _ = try session.send(message, at: 0)
        let drained = session.drain()
        XCTAssertTrue(drained.values.allSatisfy { $0.count <= 97 }, "min(MTU-3, 510) of the smallest MTU")
        XCTAssertEqual(reassemble(drained.values), [message])
        XCTAssertEqual(
            drained.events,
            [
                .transfer(
                    .sent(
                        OutgoingMessage(
                            number: 1, id: 0, kind: .binary, length: 5000, sha256: SHA256.hash(message.bytes).hex,
                            frames: drained.values.count, mtu: MTU(100)!))),
                .transfer(
                    .unconfirmed(
                        SentMessageSummary(id: 1, length: 5000, sha256: SHA256.hash(message.bytes).hex),
                        to: PeerName(.central, centralA))),
                .transfer(
                    .unconfirmed(
                        SentMessageSummary(id: 1, length: 5000, sha256: SHA256.hash(message.bytes).hex),
                        to: PeerName(.central, centralB))),
            ])
    }

    func testChunksFillTwoLinkLayerPayloadsAtMTU517() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)))
        let message = Message(binary: Array(repeating: 9, count: 70_000))
        _ = try session.send(message, at: 0)
        let drained = session.drain()
        XCTAssertEqual(
            drained.values.map(\.count).max(), 493,
            "2 x 251 - 9: two full LL payloads as a Multiple Handle Value Notification, never above 510")
        XCTAssertEqual(reassemble(drained.values), [message])
    }

    func testUnknownMTUMeans23() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralA))
        _ = session.handle(.notifyStarted(from: nil, mtu: nil))
        XCTAssertEqual(session.sendingMTU, MTU.default)
        _ = try session.send(Message(text: String(repeating: "y", count: 300)), at: 0)
        XCTAssertTrue(session.drain().values.allSatisfy { $0.count <= 18 }, "MTU 23 - 5")
    }

    /// bluetoothd cuts a notification to MTU - 5 when it sends it as a Multiple Handle Value
    /// Notification (every BlueZ central asks for those): at MTU 247 a 244-byte frame lost 2 bytes.
    func testNotifiedFramesFitAMultipleHandleValueNotification() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(247)))
        let message = Message(binary: (0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        _ = try session.send(message, at: 0)
        let drained = session.drain()
        XCTAssertEqual(drained.values.map(\.count).max(), 242)
        XCTAssertEqual(reassemble(drained.values.map { Array($0.prefix(247 - 5)) }), [message])
    }

    func testAnonymousSubscriptionCountsEveryConnectedCentral() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralA))
        _ = session.handle(.connected(centralB))
        _ = session.handle(.notifyStarted(from: nil, mtu: MTU(247)))
        XCTAssertEqual(session.subscriberCount, 2)
        XCTAssertEqual(session.sendingMTU, MTU(247))
        _ = session.handle(.mtu(centralB, MTU(64)!))
        XCTAssertEqual(session.sendingMTU, MTU(64))
    }

    func testCountersAndMessagesKeepTheirOrder() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(23)))
        _ = try session.notify(value: nil, at: 0)
        let message = Message(text: String(repeating: "z", count: 100))
        _ = try session.send(message, at: 0)
        _ = try session.notify(value: nil, at: 0)
        let drained = session.drain()
        XCTAssertEqual(drained.values.first, Counter(0).encoded)
        XCTAssertEqual(drained.values.last, Counter(1).encoded)
        XCTAssertEqual(reassemble(Array(drained.values.dropFirst().dropLast())), [message])
        XCTAssertEqual(drained.events.map(\.name), ["notified", "sent", "unconfirmed", "notified"])
    }

    func testLastUnsubscribeAbandonsTheOutboxWithAClearError() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(23)))
        XCTAssertEqual(try session.send(Message(binary: Array(repeating: 0, count: 1000)), at: 0).notified.count, 1)
        let stopped = session.handle(.notifyStopped(from: centralA))
        XCTAssertEqual(stopped.eventNames, ["unsubscribed", "error"])
        guard case .error(let problem, nil) = stopped.events[1] else { return XCTFail() }
        XCTAssertEqual(problem, .notSent(messages: 1, counters: 0, .noSubscriber))
        XCTAssertTrue(problem.description.contains("1 message not sent"), problem.description)
        XCTAssertFalse(session.hasPendingValues)
        XCTAssertEqual(
            session.handle(.sendFinished(.notification(.notify), .took(1, full: false, paced: true))), [],
            "a late outcome changes nothing")
    }

    func testOneOfTwoSubscribersLeavingKeepsSending() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(23)))
        _ = session.handle(.notifyStarted(from: centralB, mtu: MTU(23)))
        _ = try session.send(Message(binary: Array(repeating: 0, count: 1000)), at: 0)
        XCTAssertEqual(session.handle(.disconnected(centralB)).eventNames, ["disconnected"])
        XCTAssertTrue(session.hasPendingValues)
        let events = session.drain().events
        XCTAssertEqual(events.map(\.name), ["sent", "unconfirmed"])
        XCTAssertEqual(
            events.last,
            .transfer(
                .unconfirmed(
                    SentMessageSummary(
                        id: 1, length: 1000, sha256: SHA256.hash([UInt8](repeating: 0, count: 1000)).hex),
                    to: PeerName(.central, centralA))))
    }

    func testSendingNeedsPowerAndService() {
        var session = PeripheralSession()
        XCTAssertThrowsError(try session.send(Message(text: "x"), at: 0)) {
            XCTAssertTrue("\($0)".contains("powered on"))
        }
        _ = session.handle(.adapter(.poweredOn, hci0))
        XCTAssertThrowsError(try session.notify(value: nil, at: 0)) { XCTAssertTrue("\($0)".contains("start")) }
    }

    func testSubscribeTwiceReportsOnce() {
        var session = PeripheralSession.advertising()
        XCTAssertEqual(
            session.handle(.notifyStarted(from: centralA, mtu: MTU(50))).eventNames, ["connected", "mtu", "subscribed"])
        XCTAssertEqual(session.handle(.notifyStarted(from: centralA, mtu: MTU(50))), [])
        XCTAssertEqual(session.handle(.notifyStopped(from: centralA)).eventNames, ["unsubscribed"])
        XCTAssertEqual(session.handle(.notifyStopped(from: centralA)), [])
    }
}
