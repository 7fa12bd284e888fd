import RelayProtocol
import RelayTestSupport
import XCTest

/// Messages of every interesting size survive chunking and reassembly at the MTUs relay meets.
final class RoundTripTests: XCTestCase {
    private let mtus = [23, 185, 247, 517].map { MTU($0)! }

    /// 0, 1, the limit, and every size around the first few chunk boundaries and the last one below
    /// the limit (`nearLimit`: big sizes are few, so the debug-build suite stays fast).
    private func sizes(for mtu: MTU, _ carrier: ValueCarrier, limit: Int, nearLimit: Bool) -> [Int] {
        let first = mtu.sendValueLength(carrier) - FrameHeader.firstLength
        let continuation = mtu.sendValueLength(carrier) - FrameHeader.continuationLength
        var sizes: Set<Int> = [0, 1, 2, limit]
        var boundaries = [0, 1, 2, 3, 10]
        if nearLimit {
            sizes.insert(limit - 1)
            boundaries.append((limit - first) / continuation)
        }
        for chunks in boundaries {
            let boundary = first + chunks * continuation
            sizes.formUnion([boundary - 1, boundary, boundary + 1])
        }
        return sizes.filter { $0 >= 0 && $0 <= limit }.sorted()
    }

    func testRoundTripsAroundEveryChunkBoundaryUpToTheDefaultLimit() {
        roundTrips(limit: 1 << 20, nearLimit: false)
    }

    func testRoundTripsAroundEveryChunkBoundaryUpToASmallLimit() {
        roundTrips(limit: 20_000, nearLimit: true)
    }

    private func roundTrips(limit: Int, nearLimit: Bool) {
        var generator = SeededGenerator(seed: 7)
        let pool = generator.bytes(limit)
        for mtu in mtus {
            for carrier in [ValueCarrier.write, .notification] {
                var chunker = Chunker(carrier: carrier, mtu: mtu, firstMessageID: MessageID(250))
                var reassembler = Reassembler(maxMessageLength: limit)
                for size in sizes(for: mtu, carrier, limit: limit, nearLimit: nearLimit) {
                    let message = Message(kind: size % 2 == 0 ? .binary : .text, bytes: Array(pool[..<size]))
                    let frames = chunker.frames(for: message)
                    let id = frames.id
                    let expectedCount = frames.count
                    let values = Array(frames)
                    XCTAssertEqual(values.count, expectedCount, "MTU \(mtu) size \(size)")
                    XCTAssertEqual(
                        values.count, MessageFrames.frameCount(messageLength: size, mtu: mtu, carrier: carrier))
                    XCTAssertEqual(
                        values.reduce(0) { $0 + $1.count } - size,
                        MessageFrames.framingOverhead(messageLength: size, mtu: mtu, carrier: carrier),
                        "MTU \(mtu) size \(size)")
                    for (index, value) in values.enumerated() {
                        XCTAssertNotEqual(value.count, Counter.encodedLength)
                        if index < values.count - 1 {
                            XCTAssertEqual(value.count, mtu.sendValueLength(carrier), "all but the last frame are full")
                        } else {
                            XCTAssertLessThanOrEqual(value.count, mtu.sendValueLength(carrier))
                        }
                    }
                    var delivered: [ReceivedMessage] = []
                    for (index, value) in values.enumerated() {
                        let events = reassembler.receive(value)
                        if index < values.count - 1 {
                            if !events.isEmpty {
                                XCTFail("MTU \(mtu) size \(size): event before the last frame")
                                break
                            }
                        } else {
                            delivered = events.messages
                            XCTAssertEqual(events.count, 1, "MTU \(mtu) size \(size)")
                        }
                    }
                    XCTAssertEqual(delivered.count, 1, "MTU \(mtu) size \(size)")
                    XCTAssertEqual(delivered.first?.id, id)
                    XCTAssertTrue(delivered.first?.message == message, "MTU \(mtu) size \(size): content differs")
                }
            }
        }
    }

    func testOneByteOverTheLimitIsRefusedThenTheLimitArrives() {
        let limit = 5000
        var chunker = Chunker(carrier: .write, mtu: MTU(247)!)
        var reassembler = Reassembler(maxMessageLength: limit)
        let tooBig = Message(binary: [UInt8](repeating: 1, count: limit + 1))
        let events = feed(Array(chunker.frames(for: tooBig)), to: &reassembler)
        XCTAssertEqual(
            events, [.error(.messageTooLarge(MessageID(0), declared: UInt32(limit + 1), limit: limit), dropped: nil)],
            "one error for the whole message; its other chunks are ignored")
        let fits = Message(binary: [UInt8](repeating: 2, count: limit))
        XCTAssertEqual(
            feed(Array(chunker.frames(for: fits)), to: &reassembler),
            [.message(ReceivedMessage(id: MessageID(1), message: fits))])
    }

    func testSequenceNumbersWrapInLongMessages() throws {
        // 1 MiB at MTU 23 takes more than 65536 chunks.
        let mtu = MTU.default
        let message = Message(binary: (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let values = frameValues(of: message, id: MessageID(1), mtu: mtu)
        XCTAssertGreaterThan(values.count, 65536)
        XCTAssertEqual(try Frame(parsing: values[65536]).header.sequence, 0)
        XCTAssertFalse(try Frame(parsing: values[65536]).header.isFirst)
        XCTAssertEqual(try Frame(parsing: values[65537]).header.sequence, 1)
        var reassembler = Reassembler()
        XCTAssertTrue(feed(values, to: &reassembler) == [.message(ReceivedMessage(id: MessageID(1), message: message))])
    }

    func testChunkerNumbersMessagesAndWrapsIDs() {
        var chunker = Chunker(carrier: .write, mtu: .default, firstMessageID: MessageID(254))
        let ids = (0..<4).map { _ in chunker.frames(for: Message(text: "x")).id.value }
        XCTAssertEqual(ids, [254, 255, 0, 1])
        XCTAssertEqual(chunker.nextMessageID, MessageID(2))
    }

    func testFramesReuseTheCallersBuffer() {
        var frames = MessageFrames(
            message: Message(binary: Array(repeating: 3, count: 100)), id: MessageID(4), mtu: .default, carrier: .write)
        let expected = Array(frames)
        var buffer: [UInt8] = []
        var produced: [[UInt8]] = []
        XCTAssertEqual(frames.underestimatedCount, expected.count)
        while frames.next(into: &buffer) {
            produced.append(buffer)
            XCTAssertEqual(frames.underestimatedCount, expected.count - produced.count)
        }
        XCTAssertEqual(produced, expected)
        XCTAssertFalse(frames.next(into: &buffer))
        XCTAssertNil(frames.next())
    }

    func testCountersBetweenChunksLeaveTheMessageAlone() {
        let message = Message(text: String(repeating: "counter ", count: 20))
        let values = frameValues(of: message, id: MessageID(5), mtu: .default)
        var reassembler = Reassembler()
        var events: [ReassemblyEvent] = []
        for (index, value) in values.enumerated() {
            events += reassembler.receive(value)
            events += reassembler.receive(Counter(UInt32(index)).encoded)
        }
        XCTAssertEqual(events.messages, [ReceivedMessage(id: MessageID(5), message: message)])
        XCTAssertEqual(events.errors, [])
        XCTAssertEqual(
            events.compactMap { if case .counter(let counter) = $0 { counter.value } else { nil } },
            (0..<UInt32(values.count)).map { $0 })
    }

    func testParsedFramesReassembleLikeRawValues() throws {
        let message = Message(binary: (0..<300).map { UInt8($0 % 256) })
        var reassembler = Reassembler()
        var events: [ReassemblyEvent] = []
        for value in frameValues(of: message, id: MessageID(6), mtu: MTU(185)!) {
            events += reassembler.receive(try Frame(parsing: value))
        }
        XCTAssertEqual(events, [.message(ReceivedMessage(id: MessageID(6), message: message))])
    }
}
