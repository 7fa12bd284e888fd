import RelayEndpoint
import RelayProtocol
import XCTest

final class OutboxTests: XCTestCase {
    func testLongQueuesStayFIFOAndCompact() {
        var outbox = Outbox<Int>()
        for value in 0..<500 { outbox.append(counter: Counter(UInt32(value)), tag: value) }
        for value in 0..<250 { XCTAssertEqual(outbox.next()?.counter, Counter(UInt32(value))) }
        for value in 500..<600 { outbox.append(counter: Counter(UInt32(value)), tag: value) }
        var seen: [UInt32] = []
        while let next = outbox.next() { seen.append(next.counter!.value) }
        XCTAssertEqual(seen, Array(250..<600).map(UInt32.init))
        XCTAssertTrue(outbox.isEmpty)
        XCTAssertTrue(outbox.removeAll().isEmpty)
    }

    func testAMessageCompletesWithItsLastFrameAndCountersKeepTheirPlace() {
        var outbox = Outbox<String>()
        var chunker = Chunker(carrier: .write, mtu: MTU(23)!)
        outbox.append(counter: Counter(1), tag: "c1")
        let summary = outbox.append(
            Message(text: String(repeating: "x", count: 40)), number: 1, chunker: &chunker, tag: "m")
        outbox.append(counter: Counter(2), tag: "c2")
        XCTAssertEqual(summary.frames, 4)
        XCTAssertEqual(summary.sha256, SHA256.hash(Array(String(repeating: "x", count: 40).utf8)).hex)
        guard case .counter(Counter(1), "c1")? = outbox.next()?.completion else { return XCTFail("counter 1 first") }
        var frames: [[UInt8]] = []
        var completion: Outbox<String>.Completion?
        while completion == nil, let value = outbox.next() {
            frames.append(value.bytes)
            completion = value.completion
            if completion == nil { XCTAssertEqual(outbox.frontMessageProgress?.taken, frames.count) }
        }
        XCTAssertEqual(frames.count, 4)
        guard case .message(let done, "m")? = completion else { return XCTFail("the last frame completes the message") }
        XCTAssertEqual(done, summary)
        XCTAssertEqual(outbox.next()?.counter, Counter(2))
    }

    func testDroppingTheFrontMessageSkipsItsRemainingFrames() {
        var outbox = Outbox<Int>()
        var chunker = Chunker(carrier: .write, mtu: MTU(23)!)
        outbox.append(Message(binary: Array(repeating: 7, count: 100)), number: 1, chunker: &chunker, tag: 1)
        outbox.append(counter: Counter(9), tag: 2)
        _ = outbox.next()
        XCTAssertEqual(outbox.dropFrontMessage()?.1, 1)
        XCTAssertEqual(outbox.next()?.counter, Counter(9))
        XCTAssertNil(outbox.dropFrontMessage(), "a counter is not a message")
    }
}
