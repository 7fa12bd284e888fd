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
                    from: unknownCentral,
                    PartialMessageReport(ReassemblyProgress(id: MessageID(2), kind: .binary, received: 6, total: 1000)))
            ),
            #"{"event":"receiving","time":"T","from":null,"id":2,"kind":"binary","length":1000,"received":6}"#)
        XCTAssertEqual(
            json(
                .dropped(
                    from: peripheral,
                    PartialMessageReport(DroppedPartial(id: MessageID(3), kind: .text, received: 10, total: 90)),
                    .linkEnded("disconnected"))),
            #"{"event":"dropped","time":"T","from":"00:AA:01:00:00:00","id":3,"kind":"text","received":10,"length":90,"reason":"disconnected"}"#
        )
        XCTAssertEqual(
            json(
                .sent(
                    OutgoingMessage(
                        number: 4, id: 9, kind: .text, length: 5, sha256: "ab", frames: 1, mtu: MTU(517)!,
                        protocolVersion: 2))),
            #"{"event":"sent","time":"T","id":4,"kind":"text","length":5,"sha256":"ab","frames":1,"mtu":517,"protocol":2}"#
        )
        var report = ReceivedMessageReport(from: peripheral, id: 5, message: Message(binary: [1]))
        report.saved = "/tmp/x.bin"
        XCTAssertEqual(
            json(.message(report)),
            #"{"event":"message","time":"T","from":"00:AA:01:00:00:00","id":5,"kind":"binary","length":1,"#
                + #""sha256":"4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a","name":null,"saved":"/tmp/x.bin","via":"relay"}"#
        )
    }

    func testDeliveryEventsCarryTheDocumentedFields() {
        let summary = SentMessageSummary(id: 3, length: 1000, sha256: "cd")
        let central = PeerName(.central, BluetoothAddress("00:AA:01:01:00:01"))
        XCTAssertEqual(
            json(.delivered(summary, to: central, seconds: 1.23456)),
            #"{"event":"delivered","time":"T","id":3,"length":1000,"sha256":"cd","to":"00:AA:01:01:00:01","seconds":1.235}"#
        )
        XCTAssertEqual(
            json(.unconfirmed(summary, to: peripheral)),
            #"{"event":"unconfirmed","time":"T","id":3,"length":1000,"sha256":"cd","to":"00:AA:01:00:00:00"}"#)
        XCTAssertEqual(
            json(.resumed(id: 3, offset: 480, total: 1000, to: central)),
            #"{"event":"resumed","time":"T","id":3,"offset":480,"total":1000,"to":"00:AA:01:01:00:01"}"#)
        XCTAssertEqual(
            json(.progress(id: 3, direction: .outgoing, bytes: 500, total: 1000, rate: 4711.6, name: "a.jpg")),
            #"{"event":"progress","time":"T","id":3,"direction":"out","bytes":500,"total":1000,"rate":4712,"name":"a.jpg","from":null}"#
        )
        XCTAssertEqual(
            json(.failed(summary, to: central, .noProgress(seconds: 120))),
            #"{"event":"failed","time":"T","id":3,"reason":"no progress for 120 s","to":"00:AA:01:01:00:01","length":1000,"sha256":"cd"}"#
        )
        XCTAssertEqual(
            TransferEvent.delivered(summary, to: central, seconds: 0.5).humanDescription,
            "delivered message 3 (1000 bytes) to central 00:AA:01:01:00:01 in 0.5 s")
        XCTAssertEqual(
            TransferEvent.failed(summary, to: central, .notResumed(seconds: 60)).humanDescription,
            "message 3 (1000 bytes) to central 00:AA:01:01:00:01 failed: the link did not come back within 60 s")
        XCTAssertEqual(
            TransferEvent.progress(id: 3, direction: .incoming, bytes: 250, total: 1000, rate: 100, name: nil)
                .humanDescription,
            "receiving message 3: 250 of 1000 bytes (25 %), 100 bytes/s, 8 s left")
        XCTAssertEqual(
            TransferEvent.progress(
                id: 4, direction: .outgoing, bytes: 1_310_720, total: 5 << 20, rate: 46_694, name: "räksmörgås.jpg"
            ).humanDescription,
            "sending räksmörgås.jpg: 1.2 of 5.0 MiB (25 %), 45.5 KiB/s, 1 min 25 s left")
        XCTAssertEqual(
            ProgressLine(id: 1, direction: .incoming, name: nil, bytes: 0, total: 300_000, rate: 0).text,
            "receiving message 1: 0.0 of 292.9 KiB (0 %), 0 bytes/s, time left not known yet")
        XCTAssertEqual(
            ProgressLine(id: 1, direction: .outgoing, name: nil, bytes: 0, total: 3725, rate: 1).timeLeft,
            "1 h 2 min left")
    }

    func testLinesShareOneStyle() {
        XCTAssertEqual(
            TransferEvent.counter(from: peripheral, Counter(7)).humanDescription,
            "counter 7 from peripheral 00:AA:01:00:00:00")
        let text = ReceivedMessageReport(from: unknownCentral, id: 1, message: Message(text: "hi"))
        XCTAssertEqual(TransferEvent.message(text).humanDescription, #"message 1 from a central: "hi""#)
        // A peer's text is one line: a line feed cannot print a forged event line, and the
        // bidirectional controls cannot turn what is shown around.
        let forged = ReceivedMessageReport(
            from: unknownCentral, id: 2,
            message: Message(text: "ok\ncounter 5 from a central\r\t\\ \u{202E}gpj.exe\u{1B}[2J"))
        XCTAssertEqual(
            TransferEvent.message(forged).humanDescription,
            #"message 2 from a central: "ok\ncounter 5 from a central\r\t\\ \u{202E}gpj.exe\x1B[2J""#)
        XCTAssertEqual(
            TransferEvent.sent(
                OutgoingMessage(number: 4, id: 0, kind: .text, length: 5, sha256: "ab", frames: 1, mtu: MTU(23)!)
            )
            .humanDescription,
            "sent text message 4 of 5 bytes in 1 frame (MTU 23), sha256 ab")
    }

    func testAProtocolErrorIsAnErrorEventThatSaysHowManyWereNotShown() {
        let event = TransferEvent.protocolError(
            from: peripheral, .frame(.invalidFrame(.notRelayFrame(firstByte: 0))), suppressedBefore: 12)
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
        let request = MessageArrival(message, id: 0, from: peripheral, number: 12, saveDirectory: directory)
        let (saved, problem) = request.perform(files: IncomingFiles())
        XCTAssertNil(problem)
        XCTAssertEqual(saved.saved, directory + "/message-0012-00_AA_01_00_00_00.bin")
        XCTAssertEqual(FileManager.default.contents(atPath: saved.saved ?? "").map { [UInt8]($0) }, [1, 2, 3])
        XCTAssertEqual(
            MessageArrival(message, id: 0, from: peripheral, number: 1, saveDirectory: nil).perform(
                files: IncomingFiles()
            ).report
                .saved, nil)
        let unwritable = MessageArrival(
            message, id: 0, from: peripheral, number: 1, saveDirectory: "/nonexistent-dir")
        let (unsaved, why) = unwritable.perform(files: IncomingFiles())
        XCTAssertNil(unsaved.saved)
        XCTAssertTrue(why?.hasPrefix("cannot save the message as /nonexistent-dir/message-0001-") ?? false, why ?? "")
    }

    func testAFileMessageShowsItsNameOnBothOutputs() {
        let message = Message(kind: .binary, bytes: [1, 2], name: Array("räksmörgås.jpg".utf8))
        let report = ReceivedMessageReport(from: peripheral, id: 3, message: message, saved: "/d/räksmörgås.jpg")
        let event = TransferEvent.message(report)
        XCTAssertTrue(
            event.humanDescription.hasPrefix(
                "message 3 from peripheral 00:AA:01:00:00:00: file 'räksmörgås.jpg', 2 bytes"), event.humanDescription)
        XCTAssertTrue(json(event).contains(#""name":"räksmörgås.jpg","saved":"/d/räksmörgås.jpg""#), json(event))
        XCTAssertTrue(
            json(TransferEvent.message(ReceivedMessageReport(from: peripheral, id: 4, message: Message(binary: [1]))))
                .contains(#""name":null,"saved":null"#))
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
