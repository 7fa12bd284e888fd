import RelayProtocol
import RelayTestSupport
import XCTest

/// Checks the implementation against the worked examples of docs/protocol.md.
final class GoldenVectorTests: XCTestCase {
    private func vectors() throws -> [GoldenVector] {
        let vectors = try ProtocolDocument.vectors().filter {
            $0.fields["session-frame"] == nil && $0.fields["compact-frame"] == nil && $0.fields["lane"] == nil
        }
        XCTAssertEqual(
            Set(vectors.map(\.name)),
            ["counter-42", "counter-305419896", "empty-text", "short-text", "binary-1000-mtu23", "binary-1000-mtu247"])
        return vectors
    }

    func testCounterVectors() throws {
        let counters = try vectors().filter { $0.fields["counter"] != nil }
        XCTAssertEqual(counters.count, 2)
        for vector in counters {
            let value = try XCTUnwrap(vector.hexFields["value"], vector.name)
            let counter = Counter(UInt32(try XCTUnwrap(vector.integer("counter"))))
            XCTAssertEqual(counter.encoded, value, vector.name)
            XCTAssertEqual(try Counter(parsing: value), counter, vector.name)
            XCTAssertEqual(try InboundValue(parsing: value), .counter(counter), vector.name)
            var reassembler = Reassembler()
            XCTAssertEqual(reassembler.receive(value), [.counter(counter)], vector.name)
        }
    }

    func testMessageVectorsEncodeByteExact() throws {
        let messageVectors = try vectors().filter { $0.fields["kind"] != nil }
        XCTAssertEqual(messageVectors.count, 4)
        for vector in messageVectors {
            let name = vector.name
            let message = try XCTUnwrap(vector.message, name)
            XCTAssertEqual(message.bytes.count, vector.integer("length"), name)
            let mtu = try XCTUnwrap(MTU(try XCTUnwrap(vector.integer("mtu"))), name)
            let id = MessageID(UInt8(try XCTUnwrap(vector.integer("message-id"))))
            let frames = MessageFrames(message: message, id: id, mtu: mtu, carrier: .write)
            XCTAssertEqual(frames.checksum, UInt32(try XCTUnwrap(vector.integer("crc32c"))), name)
            XCTAssertEqual(CRC32C.checksum(message.bytes), frames.checksum, name)
            let values = Array(frames)
            XCTAssertEqual(values.count, vector.integer("frames"), name)
            XCTAssertEqual(frames.count, values.count, name)
            XCTAssertFalse(vector.frames.isEmpty, name)
            XCTAssertTrue(vector.frames.keys.contains(values.count - 1), "\(name): last frame shown")
            for (index, expected) in vector.frames {
                XCTAssertEqual(values[index], expected, "\(name) frame \(index)")
            }
        }
    }

    func testDocumentedFramesParseAndReencode() throws {
        for vector in try vectors() where vector.fields["kind"] != nil {
            let total = try XCTUnwrap(vector.integer("frames"))
            for (index, bytes) in vector.frames {
                let frame = try Frame(parsing: bytes)
                XCTAssertEqual(frame.encoded, bytes, "\(vector.name) frame \(index)")
                XCTAssertEqual(Int(frame.header.sequence), index, "\(vector.name) frame \(index)")
                XCTAssertEqual(frame.header.messageID.value, UInt8(try XCTUnwrap(vector.integer("message-id"))))
                XCTAssertEqual(frame.header.isFirst, index == 0, "\(vector.name) frame \(index)")
                XCTAssertEqual(frame.header.isLast, index == total - 1, "\(vector.name) frame \(index)")
                if let start = frame.header.start {
                    XCTAssertEqual(start.kind.description, vector.fields["kind"])
                    XCTAssertEqual(Int(start.totalLength), vector.integer("length"))
                    XCTAssertEqual(Int(start.checksum), vector.integer("crc32c"))
                }
                guard case .frame(let inbound) = try InboundValue(parsing: bytes) else {
                    return XCTFail("\(vector.name) frame \(index) classified as a counter")
                }
                XCTAssertEqual(inbound, frame)
            }
        }
    }

    func testMessageVectorsReassembleFrameByFrame() throws {
        for vector in try vectors() where vector.fields["kind"] != nil {
            let message = try XCTUnwrap(vector.message)
            let id = MessageID(UInt8(try XCTUnwrap(vector.integer("message-id"))))
            let mtu = try XCTUnwrap(MTU(try XCTUnwrap(vector.integer("mtu"))))
            let values = frameValues(of: message, id: id, mtu: mtu)
            var reassembler = Reassembler()
            var received = 0
            for (index, value) in values.enumerated() {
                if let documented = vector.frames[index] { XCTAssertEqual(value, documented) }
                let events = reassembler.receive(value)
                received += value.count - (index == 0 ? FrameHeader.firstLength : FrameHeader.continuationLength)
                if index == values.count - 1 {
                    XCTAssertEqual(events, [.message(ReceivedMessage(id: id, message: message))], vector.name)
                    XCTAssertNil(reassembler.progress)
                } else {
                    XCTAssertEqual(events, [], "\(vector.name) frame \(index)")
                    XCTAssertEqual(
                        reassembler.progress,
                        ReassemblyProgress(id: id, kind: message.kind, received: received, total: message.bytes.count))
                }
            }
            if vector.fields["text"] != nil { XCTAssertEqual(message.text, vector.fields["text"]) }
        }
    }

    func testMessageVectorsShuffledAreRejected() throws {
        var generator = SeededGenerator(seed: 0x5EED_0001)
        for vector in try vectors() where (vector.integer("frames") ?? 0) > 1 {
            let message = try XCTUnwrap(vector.message)
            let id = MessageID(UInt8(try XCTUnwrap(vector.integer("message-id"))))
            let mtu = try XCTUnwrap(MTU(try XCTUnwrap(vector.integer("mtu"))))
            let values = frameValues(of: message, id: id, mtu: mtu)
            for _ in 0..<20 {
                var shuffled = values
                repeat { shuffled.shuffle(using: &generator) } while shuffled == values
                var reassembler = Reassembler()
                let events = feed(shuffled, to: &reassembler)
                XCTAssertEqual(events.messages, [], "\(vector.name): a shuffled message must not be delivered")
                XCTAssertFalse(events.errors.isEmpty, "\(vector.name): shuffling must be reported")
                // The same frames in order still go through afterwards (possibly after reporting
                // that they interrupt a partial message left over from the shuffled ones).
                let recovery = feed(values, to: &reassembler)
                XCTAssertEqual(recovery.messages, [ReceivedMessage(id: id, message: message)], vector.name)
                for error in recovery.errors { XCTAssertEqual(error, .interruptedByNewMessage(newID: id)) }
            }
        }
    }

    func testDocumentedOverheadClaim() {
        // docs/protocol.md: 64 KiB at MTU 247 takes 275 frames and 1384 header bytes (<= 3 %).
        let mtu = MTU(247)!
        XCTAssertEqual(MessageFrames.frameCount(messageLength: 65536, mtu: mtu, carrier: .write), 275)
        let overhead = MessageFrames.framingOverhead(messageLength: 65536, mtu: mtu, carrier: .write)
        XCTAssertEqual(overhead, 1384)
        XCTAssertLessThanOrEqual(Double(overhead) / 65536, 0.03)
        let values = frameValues(
            of: Message(binary: [UInt8](repeating: 0xA5, count: 65536)), id: MessageID(0), mtu: mtu)
        XCTAssertEqual(values.count, 275)
        XCTAssertEqual(values.reduce(0) { $0 + $1.count } - 65536, overhead)
    }
}
