import RelayEndpoint
import RelayProtocol
import RelayTestSupport
import XCTest

/// The receiving half of version 2, frame by frame.
final class TransferReceiverTests: XCTestCase {
    private let session = SessionNumber(3)!
    private let transfer = TransferID(40)

    private func stream(_ message: Message) -> [UInt8] { MessageHeader(of: message).encoded + message.bytes }

    private func frame(_ bytes: [UInt8], _ range: Range<Int>, transfer: TransferID? = nil) -> DataFrame {
        DataFrame(
            session: session, transfer: transfer ?? self.transfer, offset: UInt32(range.lowerBound),
            bytes: Array(bytes[range]))
    }

    private func receiver(window: Int = 1000, maxMessage: Int = 1 << 20) -> TransferReceiver {
        var receiver = TransferReceiver(
            configuration: TransferReceiver.Configuration(window: window, maxMessage: maxMessage, ackEvery: 10_000),
            session: session)
        XCTAssertEqual(receiver.linkUp(next: transfer, at: 0), [])
        return receiver
    }

    private func acks(_ actions: [TransferReceiver.Action]) -> [Acknowledgement] {
        actions.compactMap { if case .acknowledge(let ack) = $0 { return ack } else { return nil } }
    }

    /// The messages delivered; a file is rebuilt from its `write` actions (checked against its digest).
    private func delivered(_ actions: [TransferReceiver.Action]) -> [Message] {
        var written: [TransferID: [UInt8]] = [:]
        var messages: [Message] = []
        for action in actions {
            switch action {
            case .deliver(_, _, let message): messages.append(message)
            case .write(let transfer, let bytes): written[transfer, default: []] += bytes
            case .deliverFile(let transfer, let header, let sha256):
                let bytes = written.removeValue(forKey: transfer) ?? []
                XCTAssertEqual(sha256, SHA256.hash(bytes), "the digest is the written bytes'")
                messages.append(Message(kind: header.kind, bytes: bytes, name: header.name))
            default: break
            }
        }
        return messages
    }

    func testInOrderFramesDeliverOnceWithAFinalAcknowledgement() {
        let message = Message(binary: (0..<500).map { UInt8($0 % 251) })
        let bytes = stream(message)
        var receiver = receiver()
        XCTAssertEqual(acks(receiver.receive(frame(bytes, 0..<200), at: 1)), [], "no gap: the acknowledgement waits")
        XCTAssertEqual(receiver.nextDeadline, 1.05, "at most 50 ms")
        let due = receiver.tick(at: 1.05)
        XCTAssertEqual(
            acks(due), [Acknowledgement(status: .receiving, session: session, transfer: transfer, received: 200)])
        let last = receiver.receive(frame(bytes, 200..<bytes.count), at: 1.1)
        XCTAssertEqual(delivered(last), [message])
        XCTAssertEqual(
            acks(last),
            [Acknowledgement(status: .delivered, session: session, transfer: transfer, received: UInt32(bytes.count))])
        XCTAssertEqual(receiver.expected, transfer.next)
        // The same frame again: a duplicate, answered with the final word (not more often than every 0.5 s).
        XCTAssertEqual(delivered(receiver.receive(frame(bytes, 200..<bytes.count), at: 1.2)), [])
        XCTAssertEqual(acks(receiver.receive(frame(bytes, 200..<bytes.count), at: 1.3)), [])
        XCTAssertEqual(acks(receiver.receive(frame(bytes, 200..<bytes.count), at: 1.7)).map(\.status), [.delivered])
        XCTAssertEqual(receiver.counts.duplicateFrames, 3)
        XCTAssertEqual(receiver.counts.delivered, 1)
    }

    func testOnlyFramesThatBringNewBytesCountAsTheSenderSending() {
        // What tells the sender beside the receiver that its peer really sends (a wider flight):
        // new bytes in order or out of order, never a duplicate, another transfer's or one past the window.
        let bytes = stream(Message(binary: [UInt8](repeating: 9, count: 600)))
        var receiver = receiver(window: 300)
        _ = receiver.receive(frame(bytes, 0..<100), at: 1)
        XCTAssertEqual(receiver.counts.framesWithNewBytes, 1)
        _ = receiver.receive(frame(bytes, 0..<100), at: 1.1)
        _ = receiver.receive(frame(bytes, 50..<100), at: 1.2)
        _ = receiver.receive(frame(bytes, 0..<100, transfer: TransferID(41)), at: 1.3)
        _ = receiver.receive(frame(bytes, 500..<600), at: 1.4)
        XCTAssertEqual(receiver.counts.framesWithNewBytes, 1, "duplicates, another transfer, past the window")
        _ = receiver.receive(frame(bytes, 200..<300), at: 1.5)
        XCTAssertEqual(receiver.counts.framesWithNewBytes, 2, "out of order, new")
        _ = receiver.receive(frame(bytes, 200..<300), at: 1.6)
        XCTAssertEqual(receiver.counts.framesWithNewBytes, 2, "held out of order already")
        _ = receiver.receive(frame(bytes, 100..<200), at: 1.7)
        XCTAssertEqual(receiver.counts.framesWithNewBytes, 3)
    }

    func testAGapIsAcknowledgedAtOnceWithRangesAndFilledOutOfOrder() {
        let message = Message(binary: (0..<900).map { UInt8($0 % 7) })
        let bytes = stream(message)
        var receiver = receiver()
        _ = receiver.receive(frame(bytes, 0..<100), at: 0)
        let gap = acks(receiver.receive(frame(bytes, 300..<400), at: 0.01))
        XCTAssertEqual(gap.first?.received, 100)
        XCTAssertEqual(gap.first?.spans, [ByteSpan(start: 300, end: 400)!])
        _ = receiver.receive(frame(bytes, 500..<600), at: 0.02)
        XCTAssertEqual(receiver.bufferedOutOfOrder, 200)
        // Part of a frame overlapping what is held: only the new bytes count.
        _ = receiver.receive(frame(bytes, 90..<350), at: 0.03)
        XCTAssertEqual(receiver.inProgress?.received, 400 - 11)
        XCTAssertEqual(receiver.bufferedOutOfOrder, 100)
        _ = receiver.receive(frame(bytes, 400..<500), at: 0.04)
        let done = receiver.receive(frame(bytes, 600..<bytes.count), at: 0.05)
        XCTAssertEqual(delivered(done), [message])
    }

    func testNothingBeyondTheWindowIsHeld() {
        let bytes = stream(Message(binary: [UInt8](repeating: 1, count: 5000)))
        var receiver = receiver(window: 1000)
        _ = receiver.receive(frame(bytes, 0..<100), at: 0)
        _ = receiver.receive(frame(bytes, 800..<1500), at: 0)
        XCTAssertEqual(receiver.bufferedOutOfOrder, 300, "cut at received + window = 1100")
        XCTAssertEqual(receiver.counts.beyondWindow, 1)
        _ = receiver.receive(frame(bytes, 2000..<2500), at: 0)
        XCTAssertEqual(receiver.bufferedOutOfOrder, 300)
    }

    func testAFileIsHeldToMaxFileAndAnyOtherMessageToMaxMessage() {
        var receiver = TransferReceiver(
            configuration: TransferReceiver.Configuration(
                window: 1000, maxMessage: 100, maxFile: 300, ackEvery: 10_000),
            session: session)
        _ = receiver.linkUp(next: transfer, at: 0)
        let file = Message(kind: .binary, bytes: [UInt8](repeating: 7, count: 300), name: Array("a.bin".utf8))
        let bytes = MessageHeader(of: file, name: file.name).encoded + file.bytes
        XCTAssertEqual(delivered(receiver.receive(frame(bytes, 0..<bytes.count), at: 0)), [file])
        let unnamed = stream(Message(binary: [UInt8](repeating: 7, count: 101)))
        let refused = receiver.receive(frame(unnamed, 0..<unnamed.count, transfer: transfer.next), at: 1)
        XCTAssertEqual(acks(refused).map(\.status), [.tooLarge])
        let bigFile = Message(kind: .binary, bytes: [UInt8](repeating: 7, count: 301), name: Array("b.bin".utf8))
        let bigBytes = MessageHeader(of: bigFile, name: bigFile.name).encoded + bigFile.bytes
        let refusedFile = receiver.receive(frame(bigBytes, 0..<40, transfer: transfer.next.next), at: 2)
        XCTAssertEqual(acks(refusedFile).map(\.status), [.tooLarge])
    }

    func testTooLargeBadHeaderAndBadChecksumEndTheMessageWithTheirStatus() {
        var receiver = receiver(maxMessage: 100)
        let big = stream(Message(binary: [UInt8](repeating: 0, count: 101)))
        let refused = receiver.receive(frame(big, 0..<50), at: 0)
        XCTAssertEqual(acks(refused).map(\.status), [.tooLarge], "refused on the header, before any buffer")
        XCTAssertEqual(receiver.expected, transfer.next)

        var second = self.receiver()
        var header = MessageHeader(of: Message(text: "hi")).encoded
        header[0] = 9
        XCTAssertEqual(
            acks(second.receive(frame(header + Array("hi".utf8), 0..<13), at: 0)).map(\.status), [.badHeader])

        var third = self.receiver()
        var corrupt = stream(Message(text: "hello"))
        corrupt[12] ^= 0xFF
        let actions = third.receive(frame(corrupt, 0..<corrupt.count), at: 0)
        XCTAssertEqual(acks(actions).map(\.status), [.checksumMismatch])
        XCTAssertEqual(delivered(actions), [])
        guard case .dropped(let dropped)? = actions.first(where: { if case .dropped = $0 { true } else { false } })
        else {
            return XCTFail("dropped")
        }
        XCTAssertEqual(dropped.cause, .refused(.checksumMismatch))

        var fourth = self.receiver()
        let short = stream(Message(text: "hello"))
        XCTAssertEqual(
            acks(fourth.receive(frame(short + [1, 2], 0..<(short.count + 2)), at: 0)).map(\.status), [.badHeader],
            "bytes past the declared end")
    }

    func testFramesOfOtherTransfersAreIgnored() {
        var receiver = receiver()
        let other = stream(Message(text: "for someone else"))
        XCTAssertEqual(receiver.receive(frame(other, 0..<other.count, transfer: TransferID(41)), at: 0), [])
        XCTAssertEqual(receiver.counts.ignoredFrames, 1)
        XCTAssertNil(receiver.inProgress)
    }

    func testAnAbortDropsThePartialAndMovesOn() {
        let bytes = stream(Message(binary: [UInt8](repeating: 2, count: 800)))
        var receiver = receiver()
        _ = receiver.receive(frame(bytes, 0..<300), at: 0)
        let actions = receiver.abort(Abort(reason: .noProgress, session: session, transfer: transfer), at: 1)
        guard case .dropped(let dropped)? = actions.first else { return XCTFail("\(actions)") }
        XCTAssertEqual(dropped.received, 289)
        XCTAssertEqual(dropped.cause, .senderGaveUp(.noProgress))
        XCTAssertEqual(receiver.expected, transfer.next)
    }

    func testAfterALinkDropTheReceiverTellsWhatItHoldsAndKeepsItForTheResumeTimeOut() {
        let bytes = stream(Message(binary: [UInt8](repeating: 3, count: 800)))
        var receiver = receiver()
        _ = receiver.receive(frame(bytes, 0..<300), at: 0)
        _ = receiver.receive(frame(bytes, 400..<500), at: 0)
        receiver.linkDown(at: 1)
        XCTAssertEqual(receiver.nextDeadline, 61, "kept for the resume time-out")
        let back = acks(receiver.linkUp(next: transfer, at: 30))
        XCTAssertEqual(
            back,
            [
                Acknowledgement(
                    status: .receiving, session: session, transfer: transfer, received: 300,
                    spans: [ByteSpan(start: 400, end: 500)!])
            ])
        receiver.linkDown(at: 40)
        let expired = receiver.tick(at: 100)
        guard case .dropped(let dropped)? = expired.first else { return XCTFail("\(expired)") }
        XCTAssertEqual(dropped.cause, .notResumed(seconds: 60))
        XCTAssertEqual(acks(expired), [], "nobody to tell while the link is down")
    }

    func testASenderThatMovedOnWhileAwayDropsThePartial() {
        let bytes = stream(Message(binary: [UInt8](repeating: 3, count: 800)))
        var receiver = receiver()
        _ = receiver.receive(frame(bytes, 0..<300), at: 0)
        receiver.linkDown(at: 1)
        let actions = receiver.linkUp(next: TransferID(41), at: 2)
        guard case .dropped(let dropped)? = actions.first else { return XCTFail("\(actions)") }
        XCTAssertEqual(dropped.cause, .senderMovedOn)
        XCTAssertEqual(receiver.expected, TransferID(41))
    }

    func testAFinalWordLostInALinkDropIsRepeatedOnTheWayBack() {
        let message = Message(text: "done")
        let bytes = stream(message)
        var receiver = receiver()
        XCTAssertEqual(delivered(receiver.receive(frame(bytes, 0..<bytes.count), at: 0)), [message])
        receiver.linkDown(at: 1)
        XCTAssertEqual(acks(receiver.linkUp(next: transfer, at: 2)).map(\.status), [.delivered])
        XCTAssertEqual(receiver.expected, transfer.next)
    }

    func testAPartialMessageStallsWhileTheLinkIsUp() {
        let bytes = stream(Message(binary: [UInt8](repeating: 3, count: 800)))
        var receiver = receiver()
        _ = receiver.receive(frame(bytes, 0..<300), at: 5)
        let actions = receiver.tick(at: 125)
        XCTAssertEqual(acks(actions).map(\.status), [.gaveUp])
        guard case .dropped(let dropped)? = actions.first else { return XCTFail("\(actions)") }
        XCTAssertEqual(dropped.cause, .stalled(seconds: 120))
    }

    func testAHeaderWithANameArrivingByteByByte() {
        let message = Message(kind: .binary, bytes: [9, 8, 7], name: Array("räksmörgås.txt".utf8))
        let bytes = MessageHeader(of: message, name: message.name).encoded + message.bytes
        var receiver = receiver()
        var all: [TransferReceiver.Action] = []
        for index in bytes.indices { all += receiver.receive(frame(bytes, index..<(index + 1)), at: Double(index)) }
        XCTAssertEqual(delivered(all), [message])
        let started = all.compactMap { if case .started(_, let header) = $0 { return header } else { return nil } }
        XCTAssertEqual(started.map(\.name), [Array("räksmörgås.txt".utf8)])
    }

    func testAFileLeavesInOrderAsItComesAndIsNeverHeldWhole() {
        var generator = SeededGenerator(seed: 16)
        let file = Message(
            kind: .binary, bytes: (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) },
            name: Array("photo.jpg".utf8))
        let bytes = MessageHeader(of: file, name: file.name).encoded + file.bytes
        var receiver = receiver(window: 2000)
        // Frames of 100 bytes, each pair swapped: every other frame arrives ahead of a gap.
        var starts = Array(stride(from: 0, to: bytes.count, by: 100))
        for index in stride(from: 0, to: starts.count - 1, by: 2) { starts.swapAt(index, index + 1) }
        var all: [TransferReceiver.Action] = []
        var maxHeld = 0
        for (step, start) in starts.enumerated() {
            let actions = receiver.receive(frame(bytes, start..<min(bytes.count, start + 100)), at: Double(step) * 0.01)
            maxHeld = max(maxHeld, receiver.bufferedOutOfOrder)
            let writes = actions.compactMap {
                if case .write(_, let bytes) = $0 { return bytes.count } else { return nil }
            }
            XCTAssertTrue(
                writes.isEmpty || step % 2 == 1 || step == starts.count - 1,
                "bytes go out only once they follow on (step \(step))")
            all += actions
        }
        XCTAssertEqual(delivered(all), [file])
        XCTAssertFalse(all.contains { if case .deliver = $0 { return true } else { return false } }, "not held whole")
        XCTAssertLessThanOrEqual(maxHeld, 100, "only what is out of order is held")
    }

    func testADroppedFileEndsWithoutDelivery() {
        let file = Message(kind: .binary, bytes: [UInt8](repeating: 1, count: 3000), name: Array("a".utf8))
        let bytes = MessageHeader(of: file, name: file.name).encoded + file.bytes
        var receiver = receiver()
        let first = receiver.receive(frame(bytes, 0..<500), at: 0)
        XCTAssertEqual(
            first.compactMap { if case .write(_, let bytes) = $0 { return bytes.count } else { return nil } },
            [500 - MessageHeader.fixedLength - 1])
        receiver.linkDown(at: 1)
        let actions = receiver.tick(at: 62)
        guard case .dropped(let dropped)? = actions.first else { return XCTFail("\(actions)") }
        XCTAssertEqual(dropped.cause, .notResumed(seconds: 60))
        XCTAssertEqual(dropped.header?.name, Array("a".utf8))
        XCTAssertTrue(delivered(actions).isEmpty)
    }

    // MARK: A hostile sender (issue 30, items 4 and 11)

    /// Out-of-order bytes sit in one window-sized buffer indexed by offset, and at most 128 separate ranges
    /// are held: a frame that would make more is refused, and its sender sends it again. No declared length is
    /// reserved, in protocol 1 or 2. Before (issue 30, items 4 and 11): one heap array per segment with a linear
    /// insert, about 50 times the window, and the declared length reserved up front.
    func testOneByteInTwoAcrossTheWindowHoldsAtMostTheRangeLimitInTheWindowsMemory() {
        let message = Message(binary: (0..<5000).map { UInt8($0 % 253) })
        let bytes = stream(message)
        var receiver = receiver(window: 2000)
        _ = receiver.receive(frame(bytes, 0..<10), at: 0)
        // One byte in two up to the window: every frame a new range.
        for offset in stride(from: 11, to: 2010, by: 2) {
            _ = receiver.receive(frame(bytes, offset..<(offset + 1)), at: 0.001)
        }
        XCTAssertEqual(receiver.bufferedOutOfOrder, 128, "128 ranges of one byte held, the rest refused")
        XCTAssertEqual(receiver.counts.fragmentedFrames, 1000 - 128)
        XCTAssertLessThanOrEqual(receiver.heldMemory, 2000 + 64, "the window's buffer, not a heap array a byte")
        // The honest bytes then come in order: the message is whole, once.
        var all: [TransferReceiver.Action] = []
        for start in stride(from: 10, to: bytes.count, by: 100) {
            all += receiver.receive(frame(bytes, start..<min(bytes.count, start + 100)), at: 0.01)
        }
        XCTAssertEqual(delivered(all), [message])
        XCTAssertEqual(receiver.heldMemory, 0, "nothing is held once it is delivered")
    }

    func testADeclaredLengthReservesNothingBeforeItsBytesCome() {
        let message = Message(binary: [UInt8](repeating: 9, count: 1 << 20))
        let bytes = stream(message)
        var receiver = receiver(window: 64 << 10, maxMessage: 1 << 20)
        _ = receiver.receive(frame(bytes, 0..<20), at: 0)
        XCTAssertEqual(receiver.inProgress?.total, 1 << 20)
        XCTAssertLessThan(receiver.heldMemory, 1024, "the 1 MiB declared is not reserved")
        _ = receiver.receive(frame(bytes, 20..<10_020), at: 0.01)
        XCTAssertLessThanOrEqual(receiver.heldMemory, 2 * 10_020, "memory follows the bytes received")
    }

    func testSeededFramesInAnyOrderWithFewRangesArriveWhole() {
        var generator = SeededGenerator(seed: 30)
        for round in 0..<20 {
            let length = Int.random(in: 1...6000, using: &generator)
            let message = Message(binary: (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let bytes = stream(message)
            let window = Int.random(in: 50...1500, using: &generator)
            var receiver = TransferReceiver(
                configuration: TransferReceiver.Configuration(
                    window: window, ackEvery: 10_000, maximumHeldRanges: Int.random(in: 1...6, using: &generator)),
                session: session)
            _ = receiver.linkUp(next: transfer, at: 0)
            var all: [TransferReceiver.Action] = []
            // A sender resending every frame in a new order until the message is whole (frames of
            // random sizes, overlapping from one pass to the next).
            for pass in 0..<400 where delivered(all).isEmpty {
                var cuts = [0]
                while cuts.last! < bytes.count {
                    cuts.append(min(bytes.count, cuts.last! + .random(in: 1...97, using: &generator)))
                }
                let frames = zip(cuts, cuts.dropFirst()).map { $0..<$1 }.shuffled(using: &generator)
                for range in frames { all += receiver.receive(frame(bytes, range), at: Double(pass)) }
            }
            XCTAssertEqual(delivered(all), [message], "round \(round): window \(window)")
            XCTAssertEqual(receiver.counts.delivered, 1)
        }
    }

    // MARK: Delivered means saved (issue 30, item 7)

    /// With a save folder the final acknowledgement waits for the file to be written, and a save that
    /// failed (disk full, no free name) is acknowledged `not saved` (status 0x06): the sender reports `failed`,
    /// and a script exits 1 (issue 30, item 7).
    func testWithSavingTheFinalWordWaitsForTheSaveAndAFailedSaveIsNotSaved() {
        let first = Message(text: "first")
        let second = Message(text: "second")
        var receiver = TransferReceiver(
            configuration: TransferReceiver.Configuration(
                window: 1000, ackEvery: 10_000, acknowledgesAfterSaving: true),
            session: session)
        _ = receiver.linkUp(next: transfer, at: 0)
        let bytes = stream(first)
        let done = receiver.receive(frame(bytes, 0..<bytes.count), at: 1)
        XCTAssertEqual(delivered(done), [first])
        XCTAssertEqual(acks(done), [], "no final word before the save")
        XCTAssertEqual(receiver.awaitingSave, 1)
        XCTAssertEqual(receiver.receive(frame(bytes, 0..<bytes.count), at: 2), [], "a resend waits too")
        // The save failed: the sender hears notSaved, and again for a duplicate later.
        XCTAssertEqual(
            acks(receiver.saved(transfer, false, at: 3)),
            [Acknowledgement(status: .notSaved, session: session, transfer: transfer, received: 0)])
        XCTAssertEqual(acks(receiver.receive(frame(bytes, 0..<bytes.count), at: 4)).map(\.status), [.notSaved])
        XCTAssertEqual(receiver.saved(transfer, true, at: 5), [], "said once")
        // The next message is saved: delivered, with its stream length.
        let next = stream(second)
        let nextDone = receiver.receive(frame(next, 0..<next.count, transfer: transfer.next), at: 6)
        XCTAssertEqual(delivered(nextDone), [second])
        XCTAssertEqual(acks(nextDone), [])
        XCTAssertEqual(
            acks(receiver.saved(transfer.next, true, at: 6.1)),
            [
                Acknowledgement(
                    status: .delivered, session: session, transfer: transfer.next, received: UInt32(next.count))
            ])
        XCTAssertEqual(receiver.awaitingSave, 0)
        XCTAssertEqual(AcknowledgementStatus.notSaved.description, "not saved by the receiver")
    }

    func testASaveThatEndsWhileTheLinkIsDownIsToldWhenTheSenderIsBack() {
        var receiver = TransferReceiver(
            configuration: TransferReceiver.Configuration(
                window: 1000, ackEvery: 10_000, acknowledgesAfterSaving: true),
            session: session)
        _ = receiver.linkUp(next: transfer, at: 0)
        let bytes = stream(Message(text: "kept"))
        _ = receiver.receive(frame(bytes, 0..<bytes.count), at: 1)
        receiver.linkDown(at: 1.5)
        XCTAssertEqual(receiver.saved(transfer, true, at: 2), [], "nobody to tell")
        XCTAssertEqual(
            acks(receiver.linkUp(next: transfer, at: 3)).map(\.status), [.delivered], "told on the way back")
        XCTAssertEqual(receiver.expected, transfer.next)
    }
}
