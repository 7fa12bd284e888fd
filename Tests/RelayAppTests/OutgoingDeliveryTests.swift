import RelayApp
import RelayEndpoint
import RelayProtocol
import XCTest

/// The sending half of protocol 2 both programs share: frames cut for the MTU, `sent` once,
/// what an acknowledgement settles, what the delivery keeps for itself.
final class OutgoingDeliveryTests: XCTestCase {
    private let session = SessionNumber(3)!

    private func delivery(_ message: Message) -> OutgoingDelivery<SessionNumber> {
        var delivery = OutgoingDelivery<SessionNumber>(settings: DeliverySettings())
        delivery.sender.linkUp(session, window: 1 << 20, at: 0)
        delivery.enqueue(message, number: 7, for: [session], at: 0)
        return delivery
    }

    /// Every data frame that may go now.
    private func frames(
        _ delivery: inout OutgoingDelivery<SessionNumber>, mtu: MTU
    ) -> [OutgoingDataFrame<SessionNumber>] {
        var frames: [OutgoingDataFrame<SessionNumber>] = []
        while let frame = delivery.nextDataFrame(at: 0, mtu: mtu, carrier: .write, session: { $0[0] }) {
            frames.append(frame)
        }
        return frames
    }

    func testFramesAreCutForTheMTUAndOnlyTheLastCompletesTheMessage() throws {
        let message = Message(text: String(repeating: "x", count: 1000))
        var delivery = delivery(message)
        let mtu = MTU(185)!
        let all = frames(&delivery, mtu: mtu)
        XCTAssertGreaterThan(all.count, 1)
        XCTAssertEqual(all.map { $0.final != nil }, Array(repeating: false, count: all.count - 1) + [true])
        XCTAssertTrue(all.allSatisfy { $0.bytes.count <= mtu.sendValueLength(.write) && $0.number == 7 })
        let last = try XCTUnwrap(all.last)
        let final = try XCTUnwrap(last.final)
        XCTAssertEqual(final.number, 7)
        XCTAssertEqual(final.transfer, last.transfer)
        let sent = try XCTUnwrap(delivery.sent(final))
        XCTAssertEqual(sent.frames, all.count, "the sent report counts the frames that carried it")
        XCTAssertEqual(sent.length, 1000)
        XCTAssertEqual(sent.protocolVersion, 2)
        XCTAssertNil(delivery.sent(final), "sent once")
    }

    func testADeliveredAcknowledgementSettlesTheMessageAndLetsItsBytesGo() throws {
        var delivery = delivery(Message(text: "hello"))
        let frame = try XCTUnwrap(frames(&delivery, mtu: MTU(185)!).first)
        let length = try XCTUnwrap(delivery.streams[7]).header.streamLength
        let ack = Acknowledgement(
            status: .delivered, session: session, transfer: frame.transfer, received: UInt32(length))
        let actions = delivery.sender.acknowledge(ack, from: session, at: 1)
        let outcomes = delivery.absorb(actions, name: { _ in PeerName(.central, nil) }, session: { $0 })
        XCTAssertTrue(outcomes.contains(.settled(number: 7, to: session, delivered: true)), "\(outcomes)")
        XCTAssertTrue(outcomes.contains { if case .report(.delivered) = $0 { true } else { false } })
        XCTAssertEqual(delivery.streams.count, 0, "its bytes are let go")
        XCTAssertEqual(delivery.failed, 0)
    }

    func testAFailureIsCountedAndItsAbortQueuedForTheRecipientsSession() throws {
        var delivery = delivery(Message(text: "hello"))
        _ = frames(&delivery, mtu: MTU(185)!)
        let outcomes = delivery.absorb(
            delivery.sender.remove(session, "it left"), name: { _ in PeerName(.central, nil) }, session: { $0 })
        XCTAssertTrue(outcomes.contains(.settled(number: 7, to: session, delivered: false)), "\(outcomes)")
        XCTAssertEqual(delivery.failed, 1)
        XCTAssertEqual(delivery.streams.count, 0)
    }

    func testAnAcknowledgementPastTheMessageIsABreachNotADelivery() throws {
        var delivery = delivery(Message(text: "hello"))
        let frame = try XCTUnwrap(frames(&delivery, mtu: MTU(185)!).first)
        let ack = Acknowledgement(status: .delivered, session: session, transfer: frame.transfer, received: 1 << 20)
        let outcomes = delivery.absorb(
            delivery.sender.acknowledge(ack, from: session, at: 1), name: { _ in PeerName(.central, nil) },
            session: { $0 })
        XCTAssertEqual(outcomes, [.breach(by: session, .acknowledgedBeyondTheMessage(frame.transfer))])
    }
}
