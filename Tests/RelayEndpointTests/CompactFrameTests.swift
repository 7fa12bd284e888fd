import RelayEndpoint
import RelayProtocol
import RelaySimulation
import XCTest

/// Compact data frames (docs/protocol.md, "Compact data frames"): when the sender uses them, how
/// the receiver places them, and what they give a small-MTU link end to end.
/// The end-to-end one is a seeded small-MTU simulation with link drops: every message arrives once,
/// intact.
final class CompactFrameTests: XCTestCase {
    private typealias Sender = TransferSender<Int>

    private func sender(compact: Bool = true) -> Sender {
        var sender = Sender(configuration: TransferSenderConfiguration(window: 64 << 10), firstTransfer: TransferID(5))
        sender.linkUp(1, window: 64 << 10, compact: compact, at: 0)
        return sender
    }

    private func acknowledge(_ sender: inout Sender, received: Int, at now: Double) {
        _ = sender.acknowledge(
            Acknowledgement(
                status: .receiving, session: SessionNumber(1)!, transfer: TransferID(5), received: UInt32(received)),
            from: 1, at: now)
    }

    func testTheFirstFramesAreFullUntilTheReceiverAcknowledgesTheMessage() throws {
        var sender = sender()
        _ = sender.enqueue(number: 1, headerLength: 11, streamLength: 4000, for: [1], at: 0)
        let first = try XCTUnwrap(sender.nextTransmission(at: 0, maxBytes: 10, compactBytes: 18))
        XCTAssertFalse(first.compact, "the receiver may not have the message in progress yet")
        XCTAssertEqual(first.range, 0..<10)
        acknowledge(&sender, received: 10, at: 0.1)
        let next = try XCTUnwrap(sender.nextTransmission(at: 0.1, maxBytes: 10, compactBytes: 18))
        XCTAssertTrue(next.compact)
        XCTAssertEqual(next.range, 10..<28)
    }

    func testAPeerThatDidNotAgreeNeverGetsOne() throws {
        var sender = sender(compact: false)
        _ = sender.enqueue(number: 1, headerLength: 11, streamLength: 4000, for: [1], at: 0)
        _ = sender.nextTransmission(at: 0, maxBytes: 10, compactBytes: 18)
        acknowledge(&sender, received: 10, at: 0.1)
        let next = try XCTUnwrap(sender.nextTransmission(at: 0.1, maxBytes: 10, compactBytes: 18))
        XCTAssertFalse(next.compact)
        XCTAssertEqual(next.range, 10..<20)
    }

    /// Bytes sent before go in full: the receiver may have finished the message (its final word
    /// lost), and it answers only a frame that names the transfer.
    func testBytesSentAgainGoInFull() throws {
        var sender = sender()
        _ = sender.enqueue(number: 1, headerLength: 11, streamLength: 48, for: [1], at: 0)
        _ = sender.nextTransmission(at: 0, maxBytes: 10, compactBytes: 18)
        acknowledge(&sender, received: 10, at: 0.1)
        var sent: [Sender.Transmission] = []
        while let next = sender.nextTransmission(at: 0.1, maxBytes: 10, compactBytes: 18) { sent.append(next) }
        XCTAssertEqual(
            sent.map(\.range), [10..<28, 28..<46, 46..<47, 47..<48], "never 2 bytes: a 4-byte value is a counter")
        XCTAssertTrue(sent.allSatisfy(\.compact))
        // Nothing more is acknowledged: the timer sends the first missing bytes again, in full.
        _ = sender.tick(at: 5)
        let again = try XCTUnwrap(sender.nextTransmission(at: 5, maxBytes: 10, compactBytes: 18))
        XCTAssertTrue(again.isRetransmission)
        XCTAssertFalse(again.compact)
    }

    func testALinkDropNeedsAFreshAcknowledgement() throws {
        var sender = sender()
        _ = sender.enqueue(number: 1, headerLength: 11, streamLength: 4000, for: [1], at: 0)
        _ = sender.nextTransmission(at: 0, maxBytes: 10, compactBytes: 18)
        acknowledge(&sender, received: 10, at: 0.1)
        XCTAssertEqual(sender.nextTransmission(at: 0.1, maxBytes: 10, compactBytes: 18)?.compact, true)
        sender.linkDown(1, at: 1)
        sender.linkUp(1, window: 64 << 10, compact: true, at: 2)
        _ = sender.tick(at: 3.5)  // the resume hold passes without the receiver's account
        let first = try XCTUnwrap(sender.nextTransmission(at: 3.5, maxBytes: 10, compactBytes: 18))
        XCTAssertFalse(first.compact)
        acknowledge(&sender, received: 28, at: 3.6)
        XCTAssertEqual(sender.nextTransmission(at: 3.6, maxBytes: 10, compactBytes: 18)?.compact, true)
    }

    /// A compact frame lies within `CompactDataFrame.span` of the first byte not acknowledged
    /// (the receiver reads its offset from there); beyond it the window goes on in full frames.
    func testNothingBeyondTheSpanGoesCompact() throws {
        var sender = Sender(
            configuration: TransferSenderConfiguration(window: 64 << 10, initialFlight: 10_000),
            firstTransfer: TransferID(5))
        sender.linkUp(1, window: 64 << 10, compact: true, at: 0)
        _ = sender.enqueue(number: 1, headerLength: 11, streamLength: 40_000, for: [1], at: 0)
        _ = sender.nextTransmission(at: 0, maxBytes: 10, compactBytes: 18)
        acknowledge(&sender, received: 10, at: 0.1)
        var sent: [Sender.Transmission] = []
        while let next = sender.nextTransmission(at: 0.1, maxBytes: 10, compactBytes: 18) { sent.append(next) }
        let compact = sent.filter(\.compact)
        XCTAssertEqual(compact.last?.range.upperBound, 10 + CompactDataFrame.span)
        XCTAssertEqual(compact.count, sent.prefix { $0.compact }.count, "compact frames first, then full ones")
        XCTAssertEqual(sent.last?.range.upperBound, 40_000, "the window (the whole message) goes on in full frames")
    }

    // MARK: The receiver

    private func receiver() -> TransferReceiver {
        TransferReceiver(configuration: TransferReceiver.Configuration(window: 64 << 10), session: SessionNumber(1)!)
    }

    func testTheReceiverPlacesCompactFramesInTheMessageInProgress() throws {
        var receiver = receiver()
        _ = receiver.linkUp(next: TransferID(5), at: 0)
        let message = Message(kind: .text, bytes: Array("compact frames carry eighteen bytes each".utf8))
        let stream = MessageHeader(of: message).encoded + message.bytes
        XCTAssertTrue(receiver.receive(CompactDataFrame(offset: 0, bytes: Array(stream[0..<18])), at: 0).isEmpty)
        XCTAssertEqual(receiver.counts.ignoredFrames, 1, "no message in progress: nothing to place it in")
        _ = receiver.receive(
            DataFrame(session: SessionNumber(1)!, transfer: TransferID(5), offset: 0, bytes: Array(stream[0..<10])),
            at: 0.1)
        var actions: [TransferReceiver.Action] = []
        var offset = 10
        while offset < stream.count {
            let end = min(stream.count, offset + 18)
            let count = end - offset == 2 ? 1 : end - offset
            actions += receiver.receive(
                CompactDataFrame(offset: offset, bytes: Array(stream[offset..<(offset + count)])), at: 0.2)
            offset += count
        }
        let delivered = actions.compactMap { action -> Message? in
            if case .deliver(let transfer, _, let message) = action, transfer == TransferID(5) { return message }
            return nil
        }
        XCTAssertEqual(delivered, [message])
    }

    func testOffsetsAreReadWithinTheSpanOfTheFirstMissingByte() {
        let frame = CompactDataFrame(offset: 20_000, bytes: [1])
        XCTAssertEqual(frame.residue, 20_000 - 16_384)
        XCTAssertEqual(frame.offset(near: 20_000), 20_000)
        XCTAssertEqual(frame.offset(near: 12_000), 20_000, "up to a span ahead")
        XCTAssertEqual(frame.offset(near: 27_000), 20_000, "up to a span behind: a duplicate")
        XCTAssertEqual(frame.offset(near: 28_300), 20_000 + 16_384, "further behind reads as ahead")
        XCTAssertEqual(CompactDataFrame(offset: 16_300, bytes: [1]).offset(near: 0), nil, "never below 0")
    }

    // MARK: End to end

    /// A link like the old radio (20-byte values, 10 frames a connection interval of 50 ms, a
    /// lost frame in a hundred, link drops): compact frames carry 18 stream bytes where full ones
    /// carry 10, and every message arrives once, intact, both ways, across the drops.
    func testASmallMTULinkMovesAlmostTwiceTheBytes() {
        func run(compact: Bool) -> DeliverySimulation.Report {
            var settings = DeliverySimulation.Settings(seed: 23, messages: 12)
            settings.maxSize = 6 << 10
            settings.frameBytes = 10
            settings.compactBytes = compact ? 18 : nil
            settings.window = 16 << 10
            settings.bandwidth = 4000
            settings.latency = 0.05
            settings.jitter = 0.01
            settings.lossRate = 0.01
            settings.burstRate = 0
            settings.reorderRate = 0
            settings.dropsPerHour = 900
            settings.outage = 1...3
            var simulation = DeliverySimulation(settings)
            let report = simulation.run()
            XCTAssertEqual(report.brokenPromises(settings), [], "compact \(compact)")
            return report
        }
        let full = run(compact: false)
        let compact = run(compact: true)
        XCTAssertEqual(full.compactFrames, 0)
        XCTAssertGreaterThan(compact.compactFrames, 0)
        let speedUp = full.simulatedSeconds / compact.simulatedSeconds
        XCTAssertGreaterThan(
            speedUp, 1.5, "\(full.simulatedSeconds) s in full frames, \(compact.simulatedSeconds) s compact")
    }
}
