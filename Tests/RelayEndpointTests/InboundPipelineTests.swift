import RelayEndpoint
import RelayProtocol
import XCTest

final class InboundPipelineTests: XCTestCase {
    private func frames(_ message: Message, mtu: Int = 23, id: UInt8 = 0) -> [[UInt8]] {
        Array(MessageFrames(message: message, id: MessageID(id), mtu: MTU(mtu)!, carrier: .write))
    }

    func testCountersAndMessagesAreCountedAndNumbered() {
        var pipeline = InboundPipeline(maxMessage: 1 << 20)
        XCTAssertEqual(pipeline.receive(Counter(5).encoded, at: 0), [.counter(Counter(5))])
        let first = Message(text: "one")
        let second = Message(binary: [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(pipeline.receive(frames(first)[0], at: 1), [.message(first, id: MessageID(0), number: 1)])
        XCTAssertEqual(
            pipeline.receive(frames(second, id: 1)[0], at: 2), [.message(second, id: MessageID(1), number: 2)])
        XCTAssertEqual(pipeline.counters, 1)
        XCTAssertEqual(pipeline.messages, 2)
        XCTAssertEqual(pipeline.lastCounter, Counter(5))
        XCTAssertEqual(pipeline.lastValue, frames(second, id: 1)[0])
    }

    func testAMessageOfSeveralFramesIsAnnouncedOnceAndTracksItsLastProgress() {
        var pipeline = InboundPipeline(maxMessage: 1 << 20)
        let message = Message(binary: Array(repeating: 9, count: 100))
        let chunks = frames(message)
        let events = pipeline.receive(chunks[0], at: 10)
        guard case .receiving(let progress)? = events.first, events.count == 1 else { return XCTFail("\(events)") }
        XCTAssertEqual(progress.total, 100)
        XCTAssertEqual(pipeline.stallDeadline(timeout: 5), 15)
        XCTAssertEqual(pipeline.receive(Counter(1).encoded, at: 12), [.counter(Counter(1))])
        XCTAssertEqual(pipeline.stallDeadline(timeout: 5), 15, "a counter in between is not progress")
        XCTAssertEqual(pipeline.receive(chunks[1], at: 13), [], "announced once")
        XCTAssertEqual(pipeline.stallDeadline(timeout: 5), 18)
        var last: [InboundEvent] = []
        for chunk in chunks.dropFirst(2) { last = pipeline.receive(chunk, at: 14) }
        XCTAssertEqual(last, [.message(message, id: MessageID(0), number: 1)])
        XCTAssertNil(pipeline.stallDeadline(timeout: 5))
    }

    func testResetDropsThePartialMessageWithTheReason() {
        var pipeline = InboundPipeline(maxMessage: 1 << 20)
        XCTAssertNil(pipeline.reset(because: .linkEnded("disconnected")), "nothing in progress")
        _ = pipeline.receive(frames(Message(binary: Array(repeating: 1, count: 50)))[0], at: 0)
        guard
            case .dropped(let partial, let reason)? = pipeline.reset(because: .stalled(seconds: 10, subscribed: false))
        else {
            return XCTFail("the partial message is dropped")
        }
        XCTAssertEqual(partial.total, 50)
        XCTAssertEqual(reason.description, "stalled: no frame for 10 s, not subscribed")
        XCTAssertNil(pipeline.progress)
        XCTAssertNil(pipeline.stallDeadline(timeout: 1))
    }

    func testProtocolErrorsArePacedAndTheSuppressedOnesCounted() {
        var pipeline = InboundPipeline(maxMessage: 1 << 20)
        var reported = 0
        for index in 0..<100 {
            for case .protocolError(_, let suppressed) in pipeline.receive(
                [0x00, 0x01, 0x02], at: 1 + Double(index) / 1000)
            {
                XCTAssertEqual(suppressed, 0)
                reported += 1
            }
        }
        XCTAssertEqual(reported, InboundPipeline.reportsPerSecond)
        let later = pipeline.receive([0x00, 0x01, 0x02], at: 3)
        guard case .protocolError(.invalidFrame(.notRelayFrame(firstByte: 0x00)), let suppressed)? = later.first else {
            return XCTFail("\(later)")
        }
        XCTAssertEqual(suppressed, 100 - InboundPipeline.reportsPerSecond)
    }

    func testATooLargeMessageIsRefusedAndTheNextOneArrives() {
        var pipeline = InboundPipeline(maxMessage: 10)
        let large = frames(Message(binary: Array(repeating: 2, count: 11)))
        let events = pipeline.receive(large[0], at: 0)
        guard case .protocolError(.messageTooLarge, _)? = events.first else { return XCTFail("\(events)") }
        for chunk in large.dropFirst() { XCTAssertEqual(pipeline.receive(chunk, at: 0), [], "the rest is ignored") }
        let small = Message(text: "fits")
        XCTAssertEqual(pipeline.receive(frames(small, id: 1)[0], at: 0), [.message(small, id: MessageID(1), number: 1)])
    }
}
