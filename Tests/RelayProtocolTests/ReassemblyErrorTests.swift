import RelayProtocol
import XCTest

/// Every protocol error is reported with its context, drops the partial message, and the next
/// good message still arrives.
final class ReassemblyErrorTests: XCTestCase {
    private let id = MessageID(3)
    /// 60 bytes at MTU 23: first chunk 6 bytes, then 15, 15, 15, 9 (5 frames).
    private let message = Message(binary: (0..<60).map { UInt8($0 + 100) })
    private var values: [[UInt8]] { frameValues(of: message, id: id, mtu: .default) }

    private func partial(_ received: Int) -> DroppedPartial {
        DroppedPartial(id: id, kind: .binary, received: received, total: 60)
    }

    private func assertFrameError(_ value: [UInt8], _ expected: FrameError, line: UInt = #line) {
        var reassembler = Reassembler()
        XCTAssertEqual(reassembler.receive(value), [.error(.invalidFrame(expected), dropped: nil)], line: line)
        assertGoodMessageArrives(&reassembler, line: line)
        // The same value in the middle of a message drops that message; its remaining chunks are
        // ignored silently.
        let events = feed([values[0], values[1], value] + values[2...], to: &reassembler)
        XCTAssertEqual(events, [.error(.invalidFrame(expected), dropped: partial(21))], line: line)
        assertGoodMessageArrives(&reassembler, line: line)
    }

    func testNotRelayFrame() {
        assertFrameError([0x42, 0x03, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1], .notRelayFrame(firstByte: 0x42))
    }

    func testUnsupportedVersion() {
        assertFrameError([0xB2, 0x03, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1], .unsupportedVersion(2))
    }

    func testTruncatedHeader() {
        assertFrameError([0xB1, 0x00, 3], .truncatedHeader(length: 3, required: 5))
        assertFrameError([0xB1, 0x01, 3, 0, 0, 2, 60, 0, 0], .truncatedHeader(length: 9, required: 14))
        assertFrameError([], .truncatedHeader(length: 0, required: 5))
    }

    func testReservedFlags() {
        var value = values[1]
        value[1] |= 0x10
        assertFrameError(value, .reservedFlags(0x10))
    }

    func testUnknownKind() {
        var value = values[0]
        value[5] = 0x7F
        assertFrameError(value, .unknownKind(0x7F))
    }

    func testAMessageOfUnknownKindCostsOneErrorWithItsContinuations() {
        var reassembler = Reassembler()
        var first = values[0]
        first[5] = 0x03  // kind 0x03: no kind this implementation knows
        let events = feed([first] + values[1...], to: &reassembler)
        XCTAssertEqual(events, [.error(.invalidFrame(.unknownKind(0x03)), dropped: nil)], "one error, not one a chunk")
        assertGoodMessageArrives(&reassembler)
    }

    func testFirstChunkWithNonZeroSequence() {
        var value = values[0]
        value[3] = 1
        assertFrameError(value, .firstChunkSequence(1))
    }

    func testEmptyPayload() {
        assertFrameError([0xB1, 0x00, 3, 2, 0], .emptyPayload)
    }

    func testMessageTooLargeIsRefusedBeforeAllocating() {
        var reassembler = Reassembler(maxMessageLength: 1000)
        // A first chunk claiming 4 GiB - 1.
        let lying: [UInt8] = [0xB1, 0x01, 9, 0, 0, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 1, 2, 3]
        XCTAssertEqual(
            reassembler.receive(lying),
            [.error(.messageTooLarge(MessageID(9), declared: UInt32.max, limit: 1000), dropped: nil)])
        XCTAssertNil(reassembler.progress, "nothing is in progress, so nothing was reserved")
        // Its continuation chunks are ignored.
        XCTAssertEqual(reassembler.receive([0xB1, 0x00, 9, 1, 0, 4]), [])
        assertGoodMessageArrives(&reassembler)
    }

    func testADeclaredLengthWithinTheLimitReservesNothing() {
        var reassembler = Reassembler()
        // A first chunk declaring 1 MiB (the limit) and carrying 3 bytes: memory follows the bytes.
        let first = Frame(
            header: FrameHeader(
                messageID: MessageID(9), sequence: 0, isLast: false,
                start: MessageStart(kind: .binary, totalLength: 1 << 20, checksum: 0)),
            payload: [1, 2, 3])
        XCTAssertEqual(reassembler.receive(first.encoded), [])
        XCTAssertEqual(reassembler.progress?.total, 1 << 20)
        XCTAssertLessThan(reassembler.heldMemory, 1024, "not the declared 1 MiB")
        let next = Frame(
            header: FrameHeader(messageID: MessageID(9), sequence: 1, isLast: false, start: nil),
            payload: [UInt8](repeating: 5, count: 500))
        XCTAssertEqual(reassembler.receive(next.encoded), [])
        XCTAssertLessThanOrEqual(reassembler.heldMemory, 2 * 503 + 64, "about twice the bytes received")
    }

    func testInterruptedByNewMessageDropsTheOldAndReceivesTheNew() {
        var reassembler = Reassembler()
        XCTAssertEqual(feed(Array(values[0..<3]), to: &reassembler), [])
        XCTAssertEqual(reassembler.progress, ReassemblyProgress(id: id, kind: .binary, received: 36, total: 60))
        let next = Message(text: "the next message, long enough for three frames")
        let nextValues = frameValues(of: next, id: MessageID(4), mtu: .default)
        let events = feed(nextValues, to: &reassembler)
        XCTAssertEqual(
            events,
            [
                .error(.interruptedByNewMessage(newID: MessageID(4)), dropped: partial(36)),
                .message(ReceivedMessage(id: MessageID(4), message: next)),
            ])
        // The rest of the interrupted message is unknown now.
        XCTAssertEqual(
            reassembler.receive(values[3]), [.error(.unknownMessage(id), dropped: nil)],
            "a chunk of a message that is not in progress")
        XCTAssertEqual(reassembler.receive(values[4]), [], "reported once per message")
        assertGoodMessageArrives(&reassembler)
    }

    func testUnknownMessage() {
        var reassembler = Reassembler()
        XCTAssertEqual(reassembler.receive(values[2]), [.error(.unknownMessage(id), dropped: nil)])
        assertGoodMessageArrives(&reassembler)
        // A chunk of another message while one is in progress.
        var stray = values[1]
        stray[2] = 77
        let events = feed([values[0], values[1], stray] + values[2...], to: &reassembler)
        XCTAssertEqual(events, [.error(.unknownMessage(MessageID(77)), dropped: partial(21))])
        assertGoodMessageArrives(&reassembler)
    }

    func testDuplicateChunk() {
        var reassembler = Reassembler()
        let events = feed([values[0], values[1], values[1]] + values[2...], to: &reassembler)
        XCTAssertEqual(events, [.error(.duplicateChunk(id, sequence: 1), dropped: partial(21))])
        assertGoodMessageArrives(&reassembler)
    }

    func testSequenceGap() {
        var reassembler = Reassembler()
        let events = feed([values[0], values[1], values[3], values[4]], to: &reassembler)
        XCTAssertEqual(events, [.error(.sequenceGap(id, expected: 2, got: 3), dropped: partial(21))])
        assertGoodMessageArrives(&reassembler)
        // Reordered: chunk 2 before chunk 1.
        let reordered = feed([values[0], values[2], values[1], values[3], values[4]], to: &reassembler)
        XCTAssertEqual(reordered, [.error(.sequenceGap(id, expected: 1, got: 2), dropped: partial(6))])
        assertGoodMessageArrives(&reassembler)
    }

    func testLengthMismatchLastChunkTooEarly() {
        var reassembler = Reassembler()
        var early = values[2]
        early[1] = FrameFlags.last.rawValue
        let events = feed([values[0], values[1], early], to: &reassembler)
        XCTAssertEqual(events, [.error(.lengthMismatch(id, declared: 60, received: 36), dropped: partial(36))])
        assertGoodMessageArrives(&reassembler)
    }

    func testLengthMismatchMoreBytesThanDeclared() {
        var reassembler = Reassembler()
        // The last chunk grows by 3 bytes: detected when it arrives, before it is stored.
        let events = feed(Array(values[0..<4]) + [values[4] + [1, 2, 3]], to: &reassembler)
        XCTAssertEqual(events, [.error(.lengthMismatch(id, declared: 60, received: 63), dropped: partial(51))])
        assertGoodMessageArrives(&reassembler)
        // A first chunk carrying more than it declares.
        let overfull = Frame(
            header: FrameHeader(
                messageID: id, sequence: 0, isLast: false,
                start: MessageStart(kind: .text, totalLength: 2, checksum: 0)),
            payload: [1, 2, 3])
        XCTAssertEqual(
            reassembler.receive(overfull.encoded), [.error(.lengthMismatch(id, declared: 2, received: 3), dropped: nil)]
        )
        assertGoodMessageArrives(&reassembler)
    }

    func testChecksumMismatch() {
        var reassembler = Reassembler()
        var corrupted = values
        corrupted[2][10] ^= 0x01
        let declared = MessageFrames(message: message, id: id, mtu: .default, carrier: .write).checksum
        var altered = message.bytes
        altered[6 + 15 + 5] ^= 0x01
        let events = feed(corrupted, to: &reassembler)
        XCTAssertEqual(
            events,
            [
                .error(
                    .checksumMismatch(id, declared: declared, computed: CRC32C.checksum(altered)), dropped: partial(60))
            ])
        assertGoodMessageArrives(&reassembler)
    }

    func testResetReportsTheDroppedPartial() {
        var reassembler = Reassembler()
        XCTAssertNil(reassembler.reset())
        XCTAssertEqual(feed(Array(values[0..<2]), to: &reassembler), [])
        XCTAssertEqual(reassembler.reset(), partial(21))
        XCTAssertNil(reassembler.progress)
        XCTAssertNil(reassembler.reset())
        // After a reset (a reconnect), the old message's chunks are unknown.
        XCTAssertEqual(reassembler.receive(values[2]), [.error(.unknownMessage(id), dropped: nil)])
        assertGoodMessageArrives(&reassembler)
    }

    func testErrorOnTheSameIDAsANewMessageDoesNotSwallowIt() {
        // After a dropped message, a new message reusing its id (ids wrap) is received normally.
        var reassembler = Reassembler()
        _ = feed([values[0], values[2]], to: &reassembler)
        XCTAssertEqual(feed(values, to: &reassembler), [.message(ReceivedMessage(id: id, message: message))])
    }
}
