import RelayProtocol
import RelayTestSupport
import XCTest

/// The version-2 codecs refuse what is malformed, with the right error, and never crash.
final class SessionFrameTests: XCTestCase {
    private let token = SessionToken(0x1A2B_3C4D)!
    private let address = BluetoothAddress("00:AA:01:01:00:01")!

    private func error(_ bytes: [UInt8]) -> SessionFrameError? {
        do {
            _ = try SessionFrame(parsing: bytes)
            return nil
        } catch {
            return error
        }
    }

    func testMarkerAndTypeAreChecked() {
        XCTAssertEqual(error([]), .notSessionFrame(firstByte: 0))
        XCTAssertEqual(error([0xB1, 0x03, 0, 1, 0, 0, 0, 0, 0, 0, 9]), .notSessionFrame(firstByte: 0xB1), "a v1 frame")
        XCTAssertEqual(error([0xB2]), .unknownType(0))
        XCTAssertEqual(error([0xB2, 0x09, 0, 0]), .unknownType(9))
        XCTAssertEqual(error([0xB2, 0x00]), .unknownType(0))
    }

    func testEveryTypeIsRefusedWhenTruncated() {
        let frames: [SessionFrame] = [
            .hello(Hello(token: token, address: address, window: 1024, next: TransferID(3))),
            .welcome(
                Welcome(
                    session: SessionNumber(5)!, central: token, peripheral: SessionToken(7)!, window: 9,
                    next: TransferID(1))),
            .data(DataFrame(session: .everyone, transfer: TransferID(2), offset: 10, bytes: [1, 2, 3])),
            .acknowledgement(
                Acknowledgement(status: .receiving, session: SessionNumber(1)!, transfer: TransferID(2), received: 5)),
            .abort(Abort(reason: .cancelled, session: SessionNumber(1)!, transfer: TransferID(2))),
        ]
        for frame in frames {
            let bytes = frame.encoded
            XCTAssertEqual(try SessionFrame(parsing: bytes), frame)
            // A data frame cut after its first stream byte is a shorter data frame.
            let whole = frame.type == .data ? DataFrame.headerLength + 1 : bytes.count
            for length in 2..<whole {
                let parsed = try? SessionFrame(parsing: bytes.prefix(length))
                XCTAssertNil(parsed, "\(frame.type) cut to \(length) bytes")
            }
        }
        XCTAssertEqual(error([0xB2, 0x03, 0, 1, 0, 0, 0, 0, 0, 0]), .emptyData)
        XCTAssertEqual(error([0xB2, 0x01, 2, 0]), .truncated(.hello, length: 4, required: 20))
    }

    func testReservedBitsTokensAndSessionsAreChecked() {
        var hello = SessionFrame.hello(Hello(token: token, address: address, window: 1, next: TransferID(0))).encoded
        hello[3] = 0x80
        XCTAssertEqual(error(hello), .reservedBits(.hello, 0x80))
        hello[3] = 0
        hello[4...7] = [0, 0, 0, 0]
        XCTAssertEqual(error(hello), .zeroToken(.hello))
        var data = SessionFrame.data(
            DataFrame(session: SessionNumber(1)!, transfer: TransferID(0), offset: 0, bytes: [7])
        )
        .encoded
        data[2] = 1
        XCTAssertEqual(error(data), .reservedBits(.data, 1))
        data[2] = 0
        data[3] = 0
        XCTAssertEqual(error(data), .invalidSession(.data, 0))
        var ack = SessionFrame.acknowledgement(
            Acknowledgement(status: .receiving, session: SessionNumber(1)!, transfer: TransferID(0), received: 0)
        ).encoded
        ack[3] = 255
        XCTAssertEqual(error(ack), .invalidSession(.acknowledgement, 255), "an acknowledgement is for one central")
        ack[3] = 1
        ack[2] = 9
        XCTAssertEqual(error(ack), .unknownStatus(9))
        XCTAssertEqual(error([0xB2, 0x05, 7, 1, 0, 0]), .unknownReason(7))
        XCTAssertEqual(error([0xB2, 0x05, 1, 1, 0, 0, 0]), .trailingBytes(.abort, length: 7, expected: 6))
    }

    func testAcknowledgementRangesMustBeOrderedAndAboveReceived() {
        func ack(received: UInt32, _ spans: [(UInt32, UInt32)]) -> [UInt8] {
            var bytes: [UInt8] = [0xB2, 0x04, 0, 1, 0, 0]
            withUnsafeBytes(of: received.littleEndian) { bytes += $0 }
            for (start, end) in spans {
                withUnsafeBytes(of: start.littleEndian) { bytes += $0 }
                withUnsafeBytes(of: end.littleEndian) { bytes += $0 }
            }
            return bytes
        }
        XCTAssertNil(error(ack(received: 10, [(20, 30), (40, 50)])))
        XCTAssertEqual(error(ack(received: 10, [(10, 30)])), .badRanges, "touching the cumulative point")
        XCTAssertEqual(error(ack(received: 10, [(40, 50), (20, 30)])), .badRanges, "descending")
        XCTAssertEqual(error(ack(received: 10, [(20, 30), (30, 40)])), .badRanges, "touching each other")
        XCTAssertEqual(error(ack(received: 10, [(30, 30)])), .badRanges, "empty")
        XCTAssertEqual(
            error(ack(received: 0, [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)])),
            .trailingBytes(.acknowledgement, length: 50, expected: 42), "at most four")
        XCTAssertEqual(
            error(ack(received: 0, []) + [1, 2, 3]), .trailingBytes(.acknowledgement, length: 13, expected: 10))
        XCTAssertEqual(Acknowledgement.spans(fitting: 20), 1, "MTU 23 carries one range")
        XCTAssertEqual(Acknowledgement.spans(fitting: 495), 4)
    }

    /// An acknowledgement is cut to the link's value size before it goes (MTU 23: 20 bytes, one
    /// range; a longer value would not be sent at all): the lowest ranges stay.
    func testAnAcknowledgementIsCutToTheValueSize() {
        let spans = [(20, 30), (40, 50), (60, 70)].map { ByteSpan(start: UInt32($0.0), end: UInt32($0.1))! }
        let ack = Acknowledgement(
            status: .receiving, session: SessionNumber(1)!, transfer: TransferID(2), received: 10, spans: spans)
        let small = SessionFrame.acknowledgement(ack).fitting(20)
        XCTAssertEqual(small.encoded.count, 18)
        guard case .acknowledgement(let cut) = small else { return XCTFail("not an acknowledgement") }
        XCTAssertEqual(cut.spans, [spans[0]])
        XCTAssertEqual(cut.received, 10)
        XCTAssertEqual(SessionFrame.acknowledgement(ack).fitting(244).encoded.count, 34, "all three fit 244")
        let abort = SessionFrame.abort(Abort(reason: .cancelled, session: SessionNumber(1)!, transfer: TransferID(2)))
        XCTAssertEqual(abort.fitting(20), abort, "other frames are left as they are")
    }

    func testHelloAndWelcomeTolerateLaterFields() throws {
        let hello = Hello(token: token, address: address, window: 512, next: TransferID(9))
        XCTAssertEqual(try SessionFrame(parsing: SessionFrame.hello(hello).encoded + [1, 2, 3]), .hello(hello))
    }

    func testACounterOnTheSessionCharacteristicIsACounter() throws {
        XCTAssertEqual(try SessionValue(parsing: [0x2A, 0, 0, 0]), .counter(Counter(42)))
        XCTAssertEqual(
            try SessionValue(parsing: [0xB2, 0x05, 1, 1, 0, 0]),
            .frame(.abort(Abort(reason: .noProgress, session: SessionNumber(1)!, transfer: TransferID(0)))))
    }

    func testRandomValuesNeverCrashAndWhatParsesReencodesTheSame() {
        var generator = SeededGenerator(seed: 99)
        for round in 0..<20_000 {
            let length = Int(generator.next() % 64)
            var bytes = generator.bytes(length)
            if length >= 2, round % 2 == 0 {
                bytes[0] = 0xB2
                bytes[1] = UInt8(1 + generator.next() % 5)
            }
            if let frame = try? SessionFrame(parsing: bytes) {
                switch frame {
                case .hello, .welcome:
                    XCTAssertEqual(frame.encoded, Array(bytes.prefix(frame.encodedLength)))
                default:
                    XCTAssertEqual(frame.encoded, bytes, "round \(round)")
                }
            }
        }
    }

    func testMessageHeader() throws {
        let header = MessageHeader(kind: .binary, length: 70_000, checksum: 0xDEAD_BEEF, name: Array("photo.jpg".utf8))
        let bytes = header.encoded
        XCTAssertEqual(bytes.count, 20)
        XCTAssertEqual(MessageHeader.length(ofHeaderStarting: bytes.prefix(10)), nil)
        XCTAssertEqual(MessageHeader.length(ofHeaderStarting: bytes.prefix(11)), 20)
        XCTAssertEqual(try MessageHeader(parsing: bytes + [1, 2, 3]), header)
        XCTAssertEqual(header.streamLength, 70_020)
        XCTAssertThrowsError(try MessageHeader(parsing: bytes.prefix(15))) {
            XCTAssertEqual($0 as? MessageHeaderError, .truncated(length: 15, required: 20))
        }
        var bad = bytes
        bad[0] = 7
        XCTAssertThrowsError(try MessageHeader(parsing: bad)) {
            XCTAssertEqual($0 as? MessageHeaderError, .unknownKind(7))
        }
        bad = bytes
        bad[1] = 1
        XCTAssertThrowsError(try MessageHeader(parsing: bad)) {
            XCTAssertEqual($0 as? MessageHeaderError, .reservedFlags(1))
        }
    }

    func testTransferIDsCompareAsSerialNumbers() {
        XCTAssertEqual(TransferID(65535).next, TransferID(0))
        XCTAssertEqual(TransferID(65530).distance(to: TransferID(4)), 10)
        XCTAssertEqual(TransferID(4).distance(to: TransferID(65530)), -10)
        XCTAssertNil(SessionToken(0))
        XCTAssertNil(SessionNumber(0))
        XCTAssertEqual(SessionNumber.everyone.description, "all")
    }
}
