import RelayProtocol
import XCTest

@testable import RelayEndpoint

/// What the sender keeps of a recipient's holdings is bounded: at most 64 ranges per message,
/// the lowest (docs/reliability.md, the bounds table), whatever pattern of acknowledgements comes.
final class TransferSenderHeldRangesTests: XCTestCase {
    func testAtMost64AcknowledgedRangesAreKeptTheLowest() throws {
        var sender = TransferSender<String>(
            configuration: TransferSender<String>.Configuration(window: 100_000, initialFlight: 1 << 20))
        sender.linkUp("p", window: 1 << 20, at: 0)
        let transfer = sender.enqueue(number: 1, headerLength: 11, streamLength: 50_000, for: ["p"], at: 0)
        while sender.nextTransmission(at: 0, maxBytes: 200) != nil {}
        // Every other byte from 1000 on acknowledged, four ranges a look, 500 looks: 2000 ranges.
        var now = 0.0
        for look in 0..<500 {
            now += 0.01
            let spans = (0..<4).map { index -> ByteSpan in
                let start = UInt32(1000 + 2 * (4 * look + index))
                return ByteSpan(start: start, end: start + 1)!
            }
            _ = sender.acknowledge(
                Acknowledgement(
                    status: .receiving, session: SessionNumber(1)!, transfer: transfer, received: 0, spans: spans),
                from: "p", at: now)
        }
        let held = try XCTUnwrap(sender.entries.first?.tracks["p"]?.held.ranges)
        XCTAssertEqual(held.count, TransferSender<String>.maximumHeldRanges)
        XCTAssertEqual(held.first, 1000..<1001, "the lowest are kept")
        XCTAssertEqual(held.last, 1126..<1127)
    }
}
