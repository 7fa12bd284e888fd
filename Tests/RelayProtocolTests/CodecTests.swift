import RelayProtocol
import RelayTestSupport
import XCTest

/// Counter, MTU, message, CRC-32C and frame header codecs.
final class CodecTests: XCTestCase {
    func testCounterEncodesLittleEndianAndWraps() throws {
        XCTAssertEqual(Counter(0x0102_0304).encoded, [0x04, 0x03, 0x02, 0x01])
        XCTAssertEqual(Counter(7).encodedLength, 4)
        XCTAssertEqual(Counter(UInt32.max).next, Counter(0))
        XCTAssertEqual(Counter(41).next, Counter(42))
        XCTAssertEqual(try Counter(parsing: [0xFF, 0xFF, 0xFF, 0xFF]), Counter(UInt32.max))
        XCTAssertThrowsError(try Counter(parsing: [1, 2, 3])) { error in
            XCTAssertEqual(error as? CounterError, .wrongLength(3))
        }
        XCTAssertThrowsError(try Counter(parsing: [1, 2, 3, 4, 5]))
    }

    func testCounterRoundTripsThroughArraySlice() throws {
        let value: [UInt8] = [9, 9, 0x2A, 0, 0, 0, 9]
        XCTAssertEqual(try Counter(parsing: value[2..<6]), Counter(42))
        var reassembler = Reassembler()
        XCTAssertEqual(reassembler.receive(value[2..<6]), [.counter(Counter(42))])
    }

    func testMTUValidatesAndClamps() {
        XCTAssertNil(MTU(22))
        XCTAssertNil(MTU(518))
        XCTAssertEqual([23, 185, 247, 513, 517].map { MTU($0)!.maxValueLength(.write) }, [20, 182, 244, 510, 510])
        // A notification may go as a Multiple Handle Value Notification: 2 bytes fewer.
        XCTAssertEqual(
            [23, 185, 247, 513, 515, 517].map { MTU($0)!.maxValueLength(.notification) }, [18, 180, 242, 508, 510, 510])
        // Values sent: whole 251-byte link-layer payloads where the MTU allows.
        XCTAssertEqual(
            [23, 185, 246, 247, 497, 498, 517].map { MTU($0)!.sendValueLength(.write) },
            [20, 182, 243, 244, 244, 495, 495])
        XCTAssertEqual(
            [23, 185, 246, 247, 497, 498, 517].map { MTU($0)!.sendValueLength(.notification) },
            [18, 180, 241, 242, 242, 493, 493])
        XCTAssertEqual(MTU.default.value, 23)
        XCTAssertEqual(MTU(clamping: 0), MTU.default)
        XCTAssertEqual(MTU(clamping: 65535).value, 517)
        XCTAssertEqual(MTU(clamping: 100).value, 100)
    }

    func testMessageText() {
        XCTAssertEqual(Message(text: "grüß dich").text, "grüß dich")
        XCTAssertEqual(Message(text: "").text, "")
        XCTAssertNil(Message(kind: .text, bytes: [0xC3]).text, "invalid UTF-8")
        XCTAssertNil(Message(binary: Array("abc".utf8)).text, "binary message")
    }

    func testCRC32CCheckValueAndIncrementalUpdate() {
        XCTAssertEqual(CRC32C.checksum(Array("123456789".utf8)), 0xE306_9283)
        XCTAssertEqual(CRC32C.checksum([UInt8]()), 0)
        // RFC 3720 (iSCSI) B.4 vectors.
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0, count: 32)), 0x8A91_36AA)
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)), 0x62A8_AB43)
        XCTAssertEqual(CRC32C.checksum((0..<32).map { UInt8($0) }), 0x46DD_794E)
        var generator = SeededGenerator(seed: 42)
        let data = generator.bytes(1000)
        let oneShot = CRC32C.checksum(data)
        XCTAssertEqual(oneShot, bitwiseCRC32C(data))
        for split in [0, 1, 7, 8, 9, 63, 500, 999, 1000] {
            var crc = CRC32C()
            crc.update(data[..<split])
            crc.update(data[split...])
            XCTAssertEqual(crc.value, oneShot, "split at \(split)")
        }
        for length in 0..<40 {
            XCTAssertEqual(CRC32C.checksum(data[3..<(3 + length)]), bitwiseCRC32C(Array(data[3..<(3 + length)])))
        }
    }

    /// The textbook bit-by-bit definition, to check the sliced tables against.
    private func bitwiseCRC32C(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    func testFrameHeaderRoundTrip() throws {
        let first = FrameHeader(
            messageID: MessageID(9), sequence: 0, isLast: false,
            start: MessageStart(kind: .binary, totalLength: 0x0102_0304, checksum: 0xA1B2_C3D4))
        var bytes: [UInt8] = []
        first.encode(into: &bytes)
        XCTAssertEqual(bytes, [0xB1, 0x01, 0x09, 0x00, 0x00, 0x02, 0x04, 0x03, 0x02, 0x01, 0xD4, 0xC3, 0xB2, 0xA1])
        XCTAssertEqual(bytes.count, first.encodedLength)
        XCTAssertEqual(try FrameHeader(parsing: bytes + [0x55]), first)

        let continuation = FrameHeader(messageID: MessageID(255), sequence: 0xBEEF, isLast: true, start: nil)
        let frame = Frame(header: continuation, payload: [1, 2])
        XCTAssertEqual(frame.encoded, [0xB1, 0x02, 0xFF, 0xEF, 0xBE, 1, 2])
        XCTAssertEqual(frame.encodedLength, 7)
        XCTAssertEqual(try Frame(parsing: frame.encoded), frame)
        XCTAssertEqual(try InboundValue(parsing: frame.encoded), .frame(frame))
    }

    func testFrameParsingErrors() {
        let cases: [([UInt8], FrameError)] = [
            ([], .truncatedHeader(length: 0, required: 5)),
            ([0x00, 0x03, 0, 0, 0, 1], .notRelayFrame(firstByte: 0x00)),
            ([0xA1, 0x03, 0, 0, 0, 1], .notRelayFrame(firstByte: 0xA1)),
            ([0xB2, 0x03, 0, 0, 0, 1], .unsupportedVersion(2)),
            ([0xB0, 0x03, 0, 0, 0, 1], .unsupportedVersion(0)),
            ([0xB1, 0x00, 0], .truncatedHeader(length: 3, required: 5)),
            ([0xB1, 0x01, 0, 0, 0, 1, 0, 0, 0, 0, 0], .truncatedHeader(length: 11, required: 14)),
            ([0xB1, 0x04, 0, 0, 0, 1], .reservedFlags(0x04)),
            ([0xB1, 0x83, 0, 0, 0, 1], .reservedFlags(0x83)),
            ([0xB1, 0x03, 0, 0, 0, 0x03, 1, 0, 0, 0, 0, 0, 0, 0, 1], .unknownKind(0x03)),
            ([0xB1, 0x03, 0, 0, 0, 0x00, 1, 0, 0, 0, 0, 0, 0, 0, 1], .unknownKind(0x00)),
            ([0xB1, 0x03, 0, 5, 0, 0x01, 1, 0, 0, 0, 0, 0, 0, 0, 1], .firstChunkSequence(5)),
            ([0xB1, 0x00, 0, 1, 0], .emptyPayload),
            ([0xB1, 0x02, 0, 1, 0], .emptyPayload),
            ([0xB1, 0x01, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0], .emptyPayload),  // empty but not LAST
            ([0xB1, 0x03, 0, 0, 0, 0x01, 5, 0, 0, 0, 0, 0, 0, 0], .emptyPayload),  // declares 5 bytes, carries none
        ]
        for (bytes, expected) in cases {
            XCTAssertThrowsError(try Frame(parsing: bytes), "\(bytes)") { error in
                XCTAssertEqual(error as? FrameError, expected, "\(bytes)")
            }
            XCTAssertThrowsError(try InboundValue(parsing: bytes), "\(bytes)")
            XCTAssertFalse(expected.description.isEmpty)
        }
    }

    func testNoFrameIsFourBytes() {
        // Every 4-byte value is a counter, even one starting with the marker.
        XCTAssertEqual(try InboundValue(parsing: [0xB1, 0x03, 0x00, 0x00]), .counter(Counter(0x0000_03B1)))
        // The smallest frames: a 6-byte continuation and a 14-byte empty message.
        XCTAssertNoThrow(try Frame(parsing: [0xB1, 0x02, 0, 1, 0, 7]))
        XCTAssertNoThrow(try Frame(parsing: [0xB1, 0x03, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0, 0]))
    }

    func testErrorDescriptionsAreOneLine() {
        let id = MessageID(3)
        let errors: [ReassemblyError] = [
            .invalidFrame(.notRelayFrame(firstByte: 0x0A)), .sequenceGap(id, expected: 2, got: 4),
            .duplicateChunk(id, sequence: 1), .unknownMessage(id), .interruptedByNewMessage(newID: id),
            .lengthMismatch(id, declared: 10, received: 12), .checksumMismatch(id, declared: 1, computed: 2),
            .messageTooLarge(id, declared: .max, limit: 1 << 20),
        ]
        for error in errors {
            XCTAssertFalse(error.description.isEmpty)
            XCTAssertFalse(error.description.contains("\n"))
        }
        XCTAssertEqual(
            ReassemblyError.checksumMismatch(id, declared: 0xAB, computed: 0x1234_5678).description,
            "message #3: CRC-32C mismatch (declared 0x000000ab, computed 0x12345678)")
        XCTAssertEqual(FrameError.notRelayFrame(firstByte: 0x0A).description, "not a relay frame (first byte 0x0a)")
    }
}
