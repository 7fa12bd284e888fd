import RelayApp
import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol
import XCTest

/// The events both programs print for counters and messages: one set of names, fields and lines.
final class TransferEventTests: XCTestCase {
    let console = Console(format: .json, output: { _ in }, clock: { "T" })
    let peripheral = PeerName(.peripheral, BluetoothAddress("00:AA:01:00:00:00"))
    let unknownCentral = PeerName(.central, nil)

    private func json(_ event: TransferEvent) -> String { console.jsonLine(name: event.name, fields: event.fields) }

    func testFieldsAreTheDocumentedOnes() {
        XCTAssertEqual(
            json(.counter(from: peripheral, Counter(7))),
            #"{"event":"counter","time":"T","from":"00:AA:01:00:00:00","value":7}"#)
        XCTAssertEqual(
            json(
                .receiving(
                    from: unknownCentral, ReassemblyProgress(id: MessageID(2), kind: .binary, received: 6, total: 1000))
            ),
            #"{"event":"receiving","time":"T","from":null,"id":2,"kind":"binary","length":1000,"received":6}"#)
        XCTAssertEqual(
            json(
                .dropped(
                    from: peripheral, DroppedPartial(id: MessageID(3), kind: .text, received: 10, total: 90),
                    .linkEnded("disconnected"))),
            #"{"event":"dropped","time":"T","from":"00:AA:01:00:00:00","id":3,"kind":"text","received":10,"length":90,"reason":"disconnected"}"#
        )
        XCTAssertEqual(
            json(
                .sent(
                    OutgoingMessage(id: MessageID(4), kind: .text, length: 5, sha256: "ab", frames: 1, mtu: MTU(517)!))),
            #"{"event":"sent","time":"T","id":4,"kind":"text","length":5,"sha256":"ab","frames":1,"mtu":517}"#)
        var report = ReceivedMessageReport(from: peripheral, id: MessageID(5), message: Message(binary: [1]))
        report.saved = "/tmp/x.bin"
        XCTAssertEqual(
            json(.message(report)),
            #"{"event":"message","time":"T","from":"00:AA:01:00:00:00","id":5,"kind":"binary","length":1,"#
                + #""sha256":"4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a","saved":"/tmp/x.bin"}"#)
    }

    func testLinesShareOneStyle() {
        XCTAssertEqual(
            TransferEvent.counter(from: peripheral, Counter(7)).humanDescription,
            "counter 7 from peripheral 00:AA:01:00:00:00")
        let text = ReceivedMessageReport(from: unknownCentral, id: MessageID(1), message: Message(text: "hi"))
        XCTAssertEqual(TransferEvent.message(text).humanDescription, #"message #1 from a central: "hi""#)
        XCTAssertEqual(
            TransferEvent.sent(
                OutgoingMessage(id: MessageID(4), kind: .text, length: 5, sha256: "ab", frames: 1, mtu: MTU(23)!)
            )
            .humanDescription,
            "sent text message #4 of 5 bytes in 1 frame (MTU 23, values up to 20 bytes), sha256 ab")
    }

    func testAProtocolErrorIsAnErrorEventThatSaysHowManyWereNotShown() {
        let event = TransferEvent.protocolError(
            from: peripheral, .invalidFrame(.notRelayFrame(firstByte: 0)), suppressedBefore: 12)
        XCTAssertEqual(event.name, "error")
        XCTAssertTrue(event.humanDescription.hasPrefix("error: protocol error from peripheral 00:AA:01:00:00:00: "))
        XCTAssertTrue(
            event.humanDescription.hasSuffix("(12 more protocol errors were not shown)"), event.humanDescription)
        XCTAssertTrue(json(event).contains(#""suppressed":12"#))
    }

    func testSaveRequestsNameTheFileAfterTheSenderAndWriteIt() throws {
        var template = Array("/tmp/relay-save-XXXXXX".utf8CString)
        let directory = String(cString: try XCTUnwrap(mkdtemp(&template)))
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let message = Message(binary: [1, 2, 3])
        let request = MessageArrival(message, id: MessageID(0), from: peripheral, number: 12, saveDirectory: directory)
        XCTAssertEqual(request.path, directory + "/message-0012-00_AA_01_00_00_00.bin")
        let (saved, problem) = request.perform()
        XCTAssertNil(problem)
        XCTAssertEqual(saved.saved, request.path)
        XCTAssertEqual(FileManager.default.contents(atPath: request.path ?? "").map { [UInt8]($0) }, [1, 2, 3])
        XCTAssertEqual(
            MessageArrival(message, id: MessageID(0), from: peripheral, number: 1, saveDirectory: nil).perform().report
                .saved, nil)
        let unwritable = MessageArrival(
            message, id: MessageID(0), from: peripheral, number: 1, saveDirectory: "/nonexistent-dir")
        let (unsaved, why) = unwritable.perform()
        XCTAssertNil(unsaved.saved)
        XCTAssertTrue(why?.hasPrefix("cannot save the message to /nonexistent-dir/message-0001-") ?? false, why ?? "")
    }

    func testTheInputQueueNeverReentersAndKeepsOrder() {
        var handled: [Int] = []
        var batches = 0
        var queue: InputQueue<Int>!
        queue = InputQueue(
            handle: { input in
                handled.append(input)
                if input < 3 { queue.feed(input + 10) }  // fed back while handling
            }, afterBatch: { batches += 1 })
        queue.feed(1)
        queue.feed(2)
        XCTAssertEqual(handled, [1, 11, 2, 12])
        XCTAssertEqual(batches, 2)
    }
}
