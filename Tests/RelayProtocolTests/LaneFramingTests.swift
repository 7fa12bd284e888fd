import RelayProtocol
import XCTest

/// The L2CAP lane's framing and PSM, against docs/protocol.md ("Lane examples"), and the
/// deframer against whatever a channel peer sends.
final class LaneFramingTests: XCTestCase {
    private func vector(_ name: String) throws -> GoldenVector {
        let vectors = try ProtocolDocument.vectors().filter { $0.fields["lane"] != nil }
        XCTAssertEqual(Set(vectors.map(\.name)), ["lane-offer", "lane-hello"])
        return try XCTUnwrap(vectors.first { $0.name == name })
    }

    func testTheOfferExampleEncodesAndParses() throws {
        let vector = try vector("lane-offer")
        let value = try XCTUnwrap(vector.hexFields["value"])
        let psm = try XCTUnwrap(LanePSM(UInt16(try XCTUnwrap(vector.integer("psm")))))
        let token = try XCTUnwrap(SessionToken(UInt32(try XCTUnwrap(vector.integer("token")))))
        let offer = LaneOffer(psm: psm, peripheral: token)
        XCTAssertEqual(offer.encoded, value)
        XCTAssertEqual(try LaneOffer(parsing: value), offer)
        XCTAssertEqual(psm.description, "0x0080")
    }

    func testAnOfferOutsideTheDynamicRangeOfAnotherLengthOrWithoutATokenIsRefused() {
        XCTAssertNil(LanePSM(0x7F))
        XCTAssertNil(LanePSM(0x100))
        XCTAssertNotNil(LanePSM(0xFF))
        XCTAssertThrowsError(try LaneOffer(parsing: [0x25, 0x00, 1, 0, 0, 0])) { error in
            XCTAssertEqual(error as? LaneOfferError, .notDynamic(0x25))
        }
        // The 2-byte value of the lane's first cut names no token: no lane.
        XCTAssertThrowsError(try LaneOffer(parsing: [0x80, 0x00])) { error in
            XCTAssertEqual(error as? LaneOfferError, .wrongLength(2))
        }
        XCTAssertThrowsError(try LaneOffer(parsing: [0x80, 0x00, 1, 0, 0, 0, 0])) { error in
            XCTAssertEqual(error as? LaneOfferError, .wrongLength(7))
        }
        XCTAssertThrowsError(try LaneOffer(parsing: [0x80, 0x00, 0, 0, 0, 0])) { error in
            XCTAssertEqual(error as? LaneOfferError, .noToken)
        }
    }

    func testTheHelloExampleIsFramedWithItsLength() throws {
        let vector = try vector("lane-hello")
        let value = try XCTUnwrap(vector.hexFields["value"])
        let channel = try XCTUnwrap(vector.hexFields["channel"])
        XCTAssertEqual(LaneFraming.encode(value), channel)
        var deframer = LaneDeframer()
        XCTAssertEqual(try deframer.take(channel), [value])
        XCTAssertEqual(deframer.pendingCount, 0)
    }

    func testValuesComeBackHoweverTheChannelCutsThem() throws {
        var generator = SeededBytes(seed: 7)
        let values = (0..<40).map { _ in generator.bytes(count: 1 + generator.next(below: 600)) }
        let stream = values.flatMap(LaneFraming.encode)
        for cut in [1, 2, 3, 7, 100, 672, stream.count] {
            var deframer = LaneDeframer()
            var out: [[UInt8]] = []
            var start = 0
            while start < stream.count {
                let end = min(stream.count, start + cut)
                out += try deframer.take(Array(stream[start..<end]))
                start = end
            }
            XCTAssertEqual(out, values, "cut every \(cut) bytes")
            XCTAssertEqual(deframer.pendingCount, 0)
        }
    }

    func testAZeroOrOversizedLengthBreaksTheLaneAndHoldsNothing() {
        var deframer = LaneDeframer()
        XCTAssertThrowsError(try deframer.take([0x00, 0x00, 0x01])) { error in
            XCTAssertEqual(error as? LaneFrameError, .emptyValue)
        }
        XCTAssertEqual(deframer.pendingCount, 0)
        XCTAssertThrowsError(try deframer.take([0x01, 0x20])) { error in
            XCTAssertEqual(error as? LaneFrameError, .tooLong(0x2001))
        }
        XCTAssertEqual(deframer.pendingCount, 0)
        // At most one value's worth is held: a peer that never completes a value holds 8 KiB.
        var slow = LaneDeframer()
        XCTAssertEqual(try slow.take([0x00, 0x20] + [UInt8](repeating: 1, count: 8191)), [])
        XCTAssertEqual(slow.pendingCount, 8193)
        XCTAssertEqual(try slow.take([9]).first?.count, 8192)
    }

    func testTheLaneMTUGivesTheChannelsRoomForValues() {
        XCTAssertEqual(MTU(laneChannelMTU: 672).maxValueLength(.lane), 670, "not held to ATT's 510")
        XCTAssertEqual(MTU(laneChannelMTU: 65535).maxValueLength(.lane), LaneFraming.largestValue)
        XCTAssertEqual(MTU(laneChannelMTU: 65535).value, 8194)
        XCTAssertEqual(MTU(laneChannelMTU: 100).maxValueLength(.lane), 98)
        // 32 PDUs of MPS 247 carry the SDU length, the lane's length and 7900 value bytes.
        XCTAssertEqual(MTU(laneChannelMTU: 65535).sendValueLength(.lane), 7900)
        XCTAssertEqual(MTU(laneChannelMTU: 7902).sendValueLength(.lane), 7900)
        XCTAssertEqual(MTU(laneChannelMTU: 7901).sendValueLength(.lane), 490, "else two PDUs")
        XCTAssertEqual(MTU(laneChannelMTU: 2050).sendValueLength(.lane), 490)
        XCTAssertEqual(MTU(laneChannelMTU: 672).sendValueLength(.lane), 490)
        XCTAssertEqual(MTU(laneChannelMTU: 300).sendValueLength(.lane), 243)
        XCTAssertEqual(MTU(laneChannelMTU: 200).sendValueLength(.lane), 198)
        XCTAssertEqual(MTU(laneChannelMTU: 23).maxValueLength(.lane), 21)
        XCTAssertEqual(MTU(laneChannelMTU: 0).maxValueLength(.lane), 21, "never below the smallest MTU")
        // GATT's values keep their ceiling whatever the MTU.
        XCTAssertEqual(MTU(laneChannelMTU: 65535).maxValueLength(.write), MTU.valueLengthCeiling)
    }

    func testASmallAttributeMTUKeepsLaneValuesAtTwoPDUs() {
        let channel = MTU(laneChannelMTU: 65535)
        // No data length extension (27-byte payloads): a 32-PDU value would take four seconds.
        XCTAssertEqual(channel.lane(besideAttributeMTU: .default).sendValueLength(.lane), 490)
        XCTAssertEqual(channel.lane(besideAttributeMTU: MTU(185)!).sendValueLength(.lane), 490)
        XCTAssertEqual(channel.lane(besideAttributeMTU: MTU(247)!).sendValueLength(.lane), 7900)
        XCTAssertEqual(channel.lane(besideAttributeMTU: MTU(517)!).sendValueLength(.lane), 7900)
        // A small channel stays small.
        XCTAssertEqual(MTU(laneChannelMTU: 100).lane(besideAttributeMTU: .default).maxValueLength(.lane), 98)
    }
}

/// A small deterministic generator for the tests' random values.
private struct SeededBytes {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next(below bound: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(bound))
    }

    mutating func bytes(count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(next(below: 256)) } }
}
