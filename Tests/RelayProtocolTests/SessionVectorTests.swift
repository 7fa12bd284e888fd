import RelayProtocol
import XCTest

/// Checks the version-2 codecs against the examples of docs/protocol.md ("Version 2 examples").
final class SessionVectorTests: XCTestCase {
    private func vectors() throws -> [String: GoldenVector] {
        let vectors = try ProtocolDocument.vectors().filter { $0.fields["session-frame"] != nil }
        XCTAssertEqual(
            Set(vectors.map(\.name)),
            [
                "v2-hello", "v2-hello-later-version", "v2-hello-version-1", "v2-welcome", "v3-hello", "v3-welcome",
                "v3-welcome-mtu",
                "v2-data-short-text",
                "v2-data-binary-1000-mtu247", "v2-ack-gap",
                "v2-ack-delivered", "v2-abort",
            ])
        return Dictionary(uniqueKeysWithValues: vectors.map { ($0.name, $0) })
    }

    private func roundTrip(
        _ frame: SessionFrame, _ vector: GoldenVector, file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        let value = try XCTUnwrap(vector.hexFields["value"], vector.name)
        XCTAssertEqual(frame.encoded, value, vector.name, file: file, line: line)
        XCTAssertEqual(frame.encodedLength, value.count, vector.name, file: file, line: line)
        XCTAssertEqual(try SessionFrame(parsing: value), frame, vector.name, file: file, line: line)
        XCTAssertEqual(try SessionValue(parsing: value), .frame(frame), vector.name, file: file, line: line)
    }

    private func token(_ vector: GoldenVector, _ key: String) throws -> SessionToken {
        try XCTUnwrap(SessionToken(UInt32(try XCTUnwrap(vector.integer(key), key))), key)
    }

    private func session(_ vector: GoldenVector) throws -> SessionNumber {
        try XCTUnwrap(SessionNumber(UInt8(try XCTUnwrap(vector.integer("session")))))
    }

    private func transfer(_ vector: GoldenVector) throws -> TransferID {
        TransferID(UInt16(try XCTUnwrap(vector.integer("transfer"))))
    }

    /// The hello a vector's fields describe.
    private func hello(_ vector: GoldenVector) throws -> Hello {
        Hello(
            version: UInt8(try XCTUnwrap(vector.integer("version"))), token: try token(vector, "token"),
            address: try XCTUnwrap(BluetoothAddress(try XCTUnwrap(vector.fields["address"]))),
            window: UInt32(try XCTUnwrap(vector.integer("window"))),
            next: TransferID(UInt16(try XCTUnwrap(vector.integer("next")))))
    }

    func testHelloAndWelcome() throws {
        let vectors = try vectors()
        let current = try XCTUnwrap(vectors["v3-hello"])
        try roundTrip(.hello(try self.hello(current)), current)
        XCTAssertEqual(
            SessionFrame.hello(
                Hello(
                    token: try token(current, "token"), address: try self.hello(current).address, window: 32768,
                    next: TransferID(0))
            ).encoded, current.hexFields["value"], "this release says 3")
        let three = try XCTUnwrap(vectors["v3-welcome"])
        try roundTrip(
            .welcome(
                Welcome(
                    version: 3, session: try session(three), central: try token(three, "central"),
                    peripheral: try token(three, "peripheral"), window: UInt32(try XCTUnwrap(three.integer("window"))),
                    next: TransferID(UInt16(try XCTUnwrap(three.integer("next")))))), three)
        let hello = try XCTUnwrap(vectors["v2-hello"])
        try roundTrip(.hello(try self.hello(hello)), hello)
        XCTAssertEqual(hello.hexFields["value"]?.count, 20, "a hello fits MTU 23")
        let welcome = try XCTUnwrap(vectors["v2-welcome"])
        try roundTrip(
            .welcome(
                Welcome(
                    version: UInt8(try XCTUnwrap(welcome.integer("version"))), session: try session(welcome),
                    central: try token(welcome, "central"), peripheral: try token(welcome, "peripheral"),
                    window: UInt32(try XCTUnwrap(welcome.integer("window"))),
                    next: TransferID(UInt16(try XCTUnwrap(welcome.integer("next")))))), welcome)
    }

    /// A welcome may carry the central's link MTU (bytes 18-19); one that would not fit a
    /// notification goes without it, and an MTU outside 23...517 reads as none.
    func testWelcomeWithTheLinkMTU() throws {
        let vectors = try vectors()
        let vector = try XCTUnwrap(vectors["v3-welcome-mtu"])
        let welcome = Welcome(
            version: 3, session: try session(vector), central: try token(vector, "central"),
            peripheral: try token(vector, "peripheral"), window: UInt32(try XCTUnwrap(vector.integer("window"))),
            next: TransferID(UInt16(try XCTUnwrap(vector.integer("next")))),
            mtu: MTU(try XCTUnwrap(vector.integer("mtu"))))
        try roundTrip(.welcome(welcome), vector)
        // 18 notified bytes at MTU 23: the MTU is left out, the rest is the 18-byte welcome.
        let plain = try XCTUnwrap(vectors["v3-welcome"]?.hexFields["value"])
        XCTAssertEqual(SessionFrame.welcome(welcome).fitting(18).encoded, plain)
        XCTAssertEqual(SessionFrame.welcome(welcome).fitting(20).encoded, vector.hexFields["value"])
        // A relay of an earlier release reads the first 18 bytes: the same welcome without MTU.
        var unknown = try XCTUnwrap(vector.hexFields["value"])
        unknown[18] = 0
        unknown[19] = 0
        var expected = welcome
        expected.mtu = nil
        XCTAssertEqual(try SessionFrame(parsing: unknown), .welcome(expected))
    }

    /// A hello below version 2 is refused as a frame that cannot be parsed (no welcome); a later central is
    /// welcomed at 3, the lower of its version and the peripheral's highest (a relay of the release before says
    /// 2 and is welcomed at 2); a welcome naming any version but 2 or 3 is refused (issue 30, item 17).
    func testALaterCentralIsWelcomedAtThreeAndAVersionBelowTwoIsRefused() throws {
        let vectors = try vectors()
        let later = try XCTUnwrap(vectors["v2-hello-later-version"])
        try roundTrip(.hello(try self.hello(later)), later)
        let refused = try XCTUnwrap(vectors["v2-hello-version-1"])
        let value = try XCTUnwrap(refused.hexFields["value"])
        XCTAssertThrowsError(try SessionFrame(parsing: value)) { error in
            XCTAssertEqual(error as? SessionFrameError, .unsupportedVersion(.hello, 1))
            XCTAssertEqual("\(error)", refused.fields["refused"])
        }
        // A welcome names the version both speak: 2 or 3, nothing else, to this implementation.
        let welcome = try XCTUnwrap(vectors["v2-welcome"]?.hexFields["value"])
        let three = try XCTUnwrap(vectors["v3-welcome"])
        XCTAssertEqual(try XCTUnwrap(three.hexFields["value"])[2], 3)
        for version: UInt8 in [0, 1, 4, 0xFF] {
            var value = welcome
            value[2] = version
            XCTAssertThrowsError(try SessionFrame(parsing: value)) { error in
                XCTAssertEqual(error as? SessionFrameError, .unsupportedVersion(.welcome, version))
            }
        }
    }

    func testShortTextInOneDataFrame() throws {
        let vector = try XCTUnwrap(try vectors()["v2-data-short-text"])
        let message = try XCTUnwrap(vector.message)
        let header = MessageHeader(of: message)
        XCTAssertEqual(header.checksum, UInt32(try XCTUnwrap(vector.integer("crc32c"))))
        let frame = DataFrame(
            session: try session(vector), transfer: try transfer(vector),
            offset: UInt32(try XCTUnwrap(vector.integer("offset"))), bytes: header.encoded + message.bytes)
        try roundTrip(.data(frame), vector)
    }

    func testBinaryStreamFramesAtMTU247() throws {
        let vector = try XCTUnwrap(try vectors()["v2-data-binary-1000-mtu247"])
        let message = try XCTUnwrap(vector.message)
        let header = MessageHeader(of: message)
        XCTAssertEqual(header.checksum, UInt32(try XCTUnwrap(vector.integer("crc32c"))))
        let mtu = try XCTUnwrap(MTU(try XCTUnwrap(vector.integer("mtu"))))
        let perFrame = mtu.sendValueLength(.notification) - DataFrame.headerLength
        let stream = header.encoded + message.bytes
        XCTAssertEqual(stream.count, 1011)
        let frames = stride(from: 0, to: stream.count, by: perFrame).map { offset in
            DataFrame(
                session: .everyone, transfer: TransferID(UInt16(vector.integer("transfer")!)), offset: UInt32(offset),
                bytes: Array(stream[offset..<min(stream.count, offset + perFrame)]))
        }
        XCTAssertEqual(frames.count, vector.integer("frames"))
        XCTAssertEqual(frames.map(\.offset), [0, 232, 464, 696, 928])
        for (index, expected) in vector.frames {
            XCTAssertEqual(SessionFrame.data(frames[index]).encoded, expected, "frame \(index)")
            XCTAssertEqual(try SessionFrame(parsing: expected), .data(frames[index]))
        }
        XCTAssertEqual(Set(vector.frames.keys), [0, 4])
        XCTAssertEqual(try MessageHeader(parsing: frames[0].bytes), header)
    }

    func testAcknowledgementsAndAbort() throws {
        let vectors = try vectors()
        for name in ["v2-ack-gap", "v2-ack-delivered"] {
            let vector = try XCTUnwrap(vectors[name])
            let status: AcknowledgementStatus = vector.fields["status"] == "delivered" ? .delivered : .receiving
            XCTAssertEqual(vector.fields["status"], status == .delivered ? "delivered" : "receiving")
            let spans = try (vector.fields["spans"] ?? "").split(separator: ",").map { text -> ByteSpan in
                let bounds = text.trimmingCharacters(in: .whitespaces).components(separatedBy: "..<")
                return try XCTUnwrap(ByteSpan(start: UInt32(bounds[0])!, end: UInt32(bounds[1])!))
            }
            try roundTrip(
                .acknowledgement(
                    Acknowledgement(
                        status: status, session: try session(vector), transfer: try transfer(vector),
                        received: UInt32(try XCTUnwrap(vector.integer("received"))), spans: spans)), vector)
        }
        let abort = try XCTUnwrap(vectors["v2-abort"])
        XCTAssertEqual(abort.fields["reason"], AbortReason.noProgress.description)
        try roundTrip(
            .abort(Abort(reason: .noProgress, session: try session(abort), transfer: try transfer(abort))), abort)
    }
}
