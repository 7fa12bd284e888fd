import RelayApp
import RelayProtocol
import XCTest

/// The control queue both programs send ahead of data stays bounded whatever a peer writes.
/// One welcome per session waits at a time, a newer acknowledgement of a message replaces the queued one,
/// and at most 16 control frames other than aborts wait per session (the oldest goes). Aborts are never let
/// go, since a receiver follows the sender's messages only through them, and there are at most 256.
final class ControlFramesTests: XCTestCase {
    private let one = SessionNumber(1)!
    private let two = SessionNumber(2)!

    private func ack(_ session: SessionNumber, _ transfer: UInt16, _ received: UInt32) -> SessionFrame {
        .acknowledgement(
            Acknowledgement(status: .receiving, session: session, transfer: TransferID(transfer), received: received))
    }

    private func welcome(_ session: SessionNumber, next: UInt16) -> SessionFrame {
        .welcome(
            Welcome(
                session: session, central: SessionToken(7)!, peripheral: SessionToken(9)!, window: 1000,
                next: TransferID(next)))
    }

    func testANewerAcknowledgementOfAMessageTakesThePlaceOfTheQueuedOne() {
        var queue = ControlFrames()
        queue.append(ack(one, 1, 100))
        queue.append(ack(two, 4, 10))
        queue.append(ack(one, 1, 300))
        XCTAssertEqual(queue.frames, [ack(one, 1, 300), ack(two, 4, 10)])
        queue.append(ack(one, 2, 5))
        XCTAssertEqual(queue.count, 3, "another message's acknowledgement is its own")
    }

    func testAWelcomeGoesFirstAndOncePerSession() {
        var queue = ControlFrames()
        queue.append(ack(one, 1, 100))
        for next in 0..<50 { queue.putFirst(welcome(one, next: UInt16(next))) }
        queue.putFirst(welcome(two, next: 3))
        XCTAssertEqual(queue.frames, [welcome(two, next: 3), welcome(one, next: 49), ack(one, 1, 100)])
        XCTAssertEqual(queue.popFirst(), welcome(two, next: 3))
        XCTAssertEqual(queue.count, 2)
    }

    func testAFloodForOneSessionKeepsItsNewestFramesAndLeavesOthersAlone() {
        var queue = ControlFrames()
        queue.append(ack(two, 1, 1))
        for transfer in 0..<1000 { queue.append(ack(one, UInt16(transfer), 0)) }
        XCTAssertEqual(queue.count, ControlFrames.maximumPerSession + 1)
        XCTAssertEqual(queue.dropped, 1000 - ControlFrames.maximumPerSession)
        XCTAssertEqual(queue.frames.first, ack(two, 1, 1), "the other session's frame stays, first")
        XCTAssertEqual(queue.frames.last, ack(one, 999, 0), "the newest is kept")
        queue.removeAll()
        XCTAssertTrue(queue.isEmpty)
        XCTAssertNil(queue.popFirst())
    }

    func testAbortsAreNeverLetGoSoAReceiverCanFollowEveryOne() {
        var queue = ControlFrames()
        let aborts = (0..<40).map {
            SessionFrame.abort(Abort(reason: .noProgress, session: one, transfer: TransferID(UInt16($0))))
        }
        for (index, abort) in aborts.enumerated() {
            queue.append(abort)
            queue.append(ack(one, UInt16(1000 + index), 0))
        }
        XCTAssertEqual(queue.frames.filter { if case .abort = $0 { true } else { false } }, aborts, "all, in order")
        XCTAssertEqual(queue.count, 40 + ControlFrames.maximumPerSession, "the acknowledgements bounded")
    }
}
