import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol
import XCTest

@testable import relay_central

final class CounterTests: XCTestCase {
    func testWriteSendsBareLittleEndianCountersAndCountsUp() {
        var harness = SessionHarness()
        harness.connectReady()
        var written: [[UInt8]] = []
        var events: [CentralEvent] = []
        for _ in 0..<3 {
            let (token, actions) = harness.command(.write(value: nil))
            written += SessionHarness.writes(actions)
            let done = harness.feed(.sendFinished(.sent))
            events += SessionHarness.events(done)
            XCTAssertEqual(SessionHarness.outcome(of: token, in: done), .success)
        }
        XCTAssertEqual(written, [[0, 0, 0, 0], [1, 0, 0, 0], [2, 0, 0, 0]])
        XCTAssertEqual(events, [.written(Counter(0)), .written(Counter(1)), .written(Counter(2))])
        let explicit = harness.command(.write(value: 0x0102_0304))
        XCTAssertEqual(SessionHarness.writes(explicit.actions), [[4, 3, 2, 1]])
        harness.feed(.sendFinished(.sent))
        XCTAssertEqual(harness.session.writing.nextCounter, Counter(0x0102_0305))
    }

    func testWritesQueueBehindTheOneInFlight() {
        var harness = SessionHarness()
        harness.connectReady()
        let first = harness.command(.write(value: nil))
        let second = harness.command(.write(value: nil))
        XCTAssertEqual(SessionHarness.writes(first.actions).count, 1)
        XCTAssertEqual(SessionHarness.writes(second.actions).count, 0, "nothing written until the first completes")
        let next = harness.feed(.sendFinished(.sent))
        XCTAssertEqual(SessionHarness.writes(next), [[1, 0, 0, 0]])
    }

    func testFailedWriteIsReportedAndTheNextGoesOn() {
        var harness = SessionHarness()
        harness.connectReady()
        let first = harness.command(.write(value: nil))
        harness.command(.write(value: nil))
        let failed = harness.feed(
            .sendFinished(.failed(.bluez(BlueZError(name: "org.bluez.Error.InvalidLength", message: "")))))
        guard case .failure(let message)? = SessionHarness.outcome(of: first.token, in: failed) else {
            return XCTFail()
        }
        XCTAssertTrue(message.contains("too large"), message)
        XCTAssertEqual(SessionHarness.writes(failed), [[1, 0, 0, 0]])
    }

    func testAValueTheFullSocketDidNotTakeWaitsInTheSessionAndGoesAgainWhenWritable() {
        var harness = SessionHarness()
        harness.connectReady()
        let first = harness.command(.write(value: nil))
        harness.command(.write(value: nil))
        XCTAssertEqual(harness.feed(.sendFinished(.full)), [], "it waits")
        XCTAssertEqual(harness.session.writing.waiting?.value, [0, 0, 0, 0])
        XCTAssertEqual(SessionHarness.outcome(of: first.token, in: harness.log), nil, "not written yet")
        XCTAssertEqual(
            harness.feed(.carrierWritable(.gatt(SessionHarness.writeID, .socket))),
            [.send([0, 0, 0, 0], on: .gatt(SessionHarness.writeID, .socket))],
            "the same value goes again, nothing else")
        XCTAssertNil(harness.session.writing.waiting)
        let next = harness.feed(.sendFinished(.sent))
        XCTAssertEqual(SessionHarness.outcome(of: first.token, in: next), .success)
        XCTAssertEqual(SessionHarness.writes(next), [[1, 0, 0, 0]])
    }

    func testTheWriteSocketClosingUnderABlockedValueFailsItAndTheRestGoByWriteValue() {
        var harness = SessionHarness()
        harness.connectReady()
        let first = harness.command(.write(value: nil))
        let second = harness.command(.write(value: nil))
        harness.feed(.sendFinished(.full))
        let closed = harness.feed(.writeSocketClosed)
        guard case .failure(let message)? = SessionHarness.outcome(of: first.token, in: closed) else {
            return XCTFail("\(closed)")
        }
        XCTAssertTrue(message.contains("counter 0 not written"), message)
        XCTAssertEqual(closed.last, .send([1, 0, 0, 0], on: .gatt(SessionHarness.writeID, .writeValue)))
        XCTAssertEqual(
            SessionHarness.outcome(of: second.token, in: harness.feed(.sendFinished(.sent))), .success)
        XCTAssertEqual(
            harness.feed(.carrierWritable(.gatt(SessionHarness.writeID, .socket))), [],
            "a late writable after the close writes nothing")
    }

    func testLeavingTheLinkForgetsABlockedValue() {
        var harness = SessionHarness()
        harness.connectReady()
        harness.command(.write(value: nil))
        harness.feed(.sendFinished(.full))
        let leaving = harness.command(.disconnect).actions
        XCTAssertTrue(leaving.contains(.releaseSockets), "\(leaving)")
        XCTAssertNil(harness.session.writing.waiting)
    }

    func testWriteBeforeConnectingFailsWithTheFix() {
        var harness = SessionHarness()
        harness.powerOn()
        let (token, actions) = harness.command(.write(value: nil))
        guard case .failure(let message)? = SessionHarness.outcome(of: token, in: actions) else { return XCTFail() }
        XCTAssertTrue(message.contains("connect"), message)
        XCTAssertEqual(harness.session.writing.nextCounter, Counter(0), "nothing counted when nothing was written")
    }

    func testReceivedCountersAreShownAndNotYetReceivedBefore() {
        var harness = SessionHarness()
        harness.connectReady()
        XCTAssertNil(harness.session.status.lastReceived)
        XCTAssertTrue(CentralEvent.status(harness.session.status).humanDescription.contains("last received none"))
        var events: [CentralEvent] = []
        for value: UInt32 in [0, 1, 2] {
            events += SessionHarness.events(harness.feed(.notification(Counter(value).encoded)))
        }
        XCTAssertEqual(events, [0, 1, 2].map(SessionHarness.counterEvent))
        XCTAssertEqual(harness.session.status.lastReceived, Counter(2))
    }
}

final class MessageTests: XCTestCase {
    func roundTrip(length: Int, mtu: Int, kind: MessageKind = .binary) {
        var harness = SessionHarness()
        harness.connectReady(mtu: mtu)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let message = Message(kind: kind, bytes: bytes)
        let (token, actions) = harness.command(.send(message))
        let values = harness.drainWrites(startingWith: actions)
        let limit = MTU(mtu)!.maxValueLength(.write)
        XCTAssertTrue(values.allSatisfy { $0.count <= limit && $0.count != 4 }, "every value fits min(MTU-3, 510)")
        XCTAssertEqual(values.count, MessageFrames.frameCount(messageLength: length, mtu: MTU(mtu)!, carrier: .write))
        // The peripheral's reassembler gets exactly the message back.
        var reassembler = Reassembler(maxMessageLength: 2 << 20)
        var delivered: [Message] = []
        for value in values {
            for event in reassembler.receive(value) {
                if case .message(let received) = event { delivered.append(received.message) }
            }
        }
        XCTAssertEqual(delivered, [message])
        let sent = SessionHarness.events(harness.log).compactMap(\.sentMessage).filter { $0.length == length }.map(
            \.sha256)
        XCTAssertEqual(sent, [SHA256.hash(bytes).hex])
        XCTAssertEqual(SessionHarness.outcome(of: token, in: harness.log), .success)
    }

    func testMessagesOfManySizesAreChunkedForTheMTUAndPaced() {
        for mtu in [23, 185, 517] {
            for length in [0, 1, 5, 200, 1024, 65536] { roundTrip(length: length, mtu: mtu) }
        }
        roundTrip(length: 1 << 20, mtu: 517)
    }

    func testCountersWrittenDuringAMessageWaitTheirTurn() {
        var harness = SessionHarness()
        harness.connectReady(mtu: 23)
        let send = harness.command(.send(Message(text: String(repeating: "x", count: 100))))
        let write = harness.command(.write(value: 9))
        XCTAssertEqual(SessionHarness.writes(write.actions), [])
        let values = harness.drainWrites(startingWith: send.actions)
        XCTAssertEqual(values.last, [9, 0, 0, 0])
        XCTAssertEqual(values.filter { $0.count == 4 }.count, 1)
    }

    func testReceivedMessagesAreShownWithDigestAndText() {
        var harness = SessionHarness()
        harness.connectReady(mtu: 23)
        var chunker = Chunker(carrier: .notification, mtu: MTU(23)!)
        let text = "hello from the iPhone side, in several frames"
        var events: [CentralEvent] = []
        for value in chunker.frames(for: Message(text: text)) {
            events += SessionHarness.events(harness.feed(.notification(value)))
        }
        XCTAssertEqual(events.first?.name, "receiving")
        events.removeFirst()
        XCTAssertEqual(
            events,
            [
                .transfer(
                    .message(
                        ReceivedMessageReport(
                            from: SessionHarness.peerName, id: 0, message: Message(text: text))))
            ])
        XCTAssertEqual(events.first?.messageReport?.sha256, SHA256.hash(Array(text.utf8)).hex)
        XCTAssertEqual(harness.session.receiving.messagesReceived, 1)
    }

    func testSaveDirectoryGetsEachMessage() {
        var settings = CentralSettings()
        settings.saveDirectory = "/tmp/in"
        var harness = SessionHarness(settings: settings)
        harness.connectReady()
        var chunker = Chunker(carrier: .notification, mtu: MTU(517)!)
        let bytes: [UInt8] = [1, 2, 3, 4, 5]
        var actions: [CentralAction] = []
        for value in chunker.frames(for: Message(binary: bytes)) { actions += harness.feed(.notification(value)) }
        guard case .program(.deliver(let request))? = actions.first else { return XCTFail("\(actions)") }
        XCTAssertEqual(request.content, .bytes(bytes))
        XCTAssertEqual(request.directory, "/tmp/in")
        XCTAssertEqual(request.name.value, "message-0001-00_AA_01_00_00_00.bin")
        XCTAssertEqual(request.report.sha256, SHA256.hash(bytes).hex)
        XCTAssertEqual(request.report.from, SessionHarness.peerName)
        XCTAssertEqual(
            SessionHarness.events(actions).first?.messageReport?.saved, nil, "saved is set once the file is written")
    }

    func testDisconnectMidMessageDropsThePartialAndTheNextArrivesIntact() {
        var settings = CentralSettings()
        settings.reconnect = true
        var harness = SessionHarness(settings: settings)
        harness.connectReady(mtu: 517)
        var chunker = Chunker(carrier: .notification, mtu: MTU(517)!)
        let big = Message(binary: [UInt8](repeating: 7, count: 64 * 1024))
        for value in chunker.frames(for: big).prefix(10) { harness.feed(.notification(value)) }
        XCTAssertEqual(
            SessionHarness.eventNames(harness.log).filter { $0 == "receiving" }.count, 1,
            "one receiving event for the message in progress")
        let lost = harness.feed(.deviceUpdated(SessionHarness.device(connected: false)))
        let names = SessionHarness.eventNames(lost)
        XCTAssertEqual(names.prefix(2), ["disconnected", "dropped"])
        guard let partial = SessionHarness.events(lost).first(where: { $0.name == "dropped" })?.drop?.partial else {
            return XCTFail()
        }
        XCTAssertEqual(partial.total, 64 * 1024)
        XCTAssertGreaterThan(partial.received, 0)
        // Reconnect, then a new message arrives intact.
        harness.feed(.timerFired(.reconnect))
        harness.feed(.discoveryStarted)
        harness.feed(.deviceUpdated(SessionHarness.device()))
        harness.establish()
        let next = Message(text: "after the drop")
        var events: [CentralEvent] = []
        for value in chunker.frames(for: next) { events += SessionHarness.events(harness.feed(.notification(value))) }
        XCTAssertEqual(events.map(\.name), ["message"])
    }

    func testDisconnectMidSendFailsTheSendAndForgetsTheQueue() {
        var harness = SessionHarness()
        harness.connectReady(mtu: 23)
        let (token, _) = harness.command(.send(Message(binary: [UInt8](repeating: 1, count: 1000))))
        harness.feed(.sendFinished(.sent))
        let lost = harness.feed(.deviceUpdated(SessionHarness.device(connected: false)))
        guard case .failure(let message)? = SessionHarness.outcome(of: token, in: lost) else { return XCTFail() }
        XCTAssertTrue(message.contains("not sent"), message)
        XCTAssertTrue(harness.session.writing.outbox.isEmpty)
        XCTAssertEqual(harness.feed(.sendFinished(.sent)), [], "a late completion is ignored")
    }

    func testProtocolErrorsAreReportedAndTheLinkGoesOn() {
        var harness = SessionHarness()
        harness.connectReady()
        let garbage = harness.feed(.notification([0x00, 0x01, 0x02, 0x03, 0x04, 0x05]))
        XCTAssertEqual(SessionHarness.eventNames(garbage), ["error"])
        XCTAssertEqual(SessionHarness.eventNames(harness.feed(.notification([5, 0, 0, 0]))), ["counter"])
    }

    func testReadShowsBothCharacteristics() {
        var harness = SessionHarness()
        harness.connectReady()
        let (token, actions) = harness.command(.read)
        XCTAssertEqual(
            actions, [.readValue(.write, SessionHarness.writeID), .readValue(.notify, SessionHarness.notifyID)])
        XCTAssertEqual(
            SessionHarness.eventNames(harness.feed(.readFinished(.write, .success([3, 0, 0, 0])))), ["read"])
        let done = harness.feed(.readFinished(.notify, .success([])))
        XCTAssertEqual(SessionHarness.outcome(of: token, in: done), .success)
        XCTAssertEqual(
            SessionHarness.events(done).first?.fields.first { $0.0 == "characteristic" }?.1, .string("notify"))
    }
}

/// Hostile input 7 (issue 8), central side: a peripheral notifying garbage at full speed.
/// Before, relay-central printed every protocol error: 165 lines in 10 s.
final class ProtocolErrorPacingTests: XCTestCase {
    func testAFloodOfBadValuesGivesFiveErrorLinesASecondThenSaysHowManyWereNotShown() {
        var harness = SessionHarness()
        harness.connectReady()
        var names: [String] = []
        for _ in 0..<1000 {
            names += SessionHarness.eventNames(
                harness.feed(.notification([0x00, 0x01, 0x02, 0x03, 0x04, 0x05]), at: 10))
        }
        XCTAssertEqual(names, Array(repeating: "error", count: 5))
        let later = harness.feed(.notification([0x00, 0x01, 0x02, 0x03, 0x04, 0x05]), at: 11.5)
        let errors = SessionHarness.events(later).filter { $0.name == "error" }.map(\.humanDescription)
        XCTAssertEqual(errors.count, 1, "\(errors)")
        XCTAssertTrue(
            errors.first?.hasPrefix("error: protocol error from peripheral 00:AA:01:00:00:00: ") ?? false, "\(errors)")
        XCTAssertTrue(errors.first?.hasSuffix("(995 more protocol errors were not shown)") ?? false, "\(errors)")
        XCTAssertEqual(
            SessionHarness.eventNames(harness.feed(.notification([5, 0, 0, 0]), at: 11.5)), ["counter"],
            "counters still arrive in the flood")
    }
}

extension ProtocolErrorPacingTests {
    func testFirstFramesOfEverNewMessagesGiveAtMostFiveReceivingLinesASecond() {
        var harness = SessionHarness()
        harness.connectReady()
        var chunker = Chunker(carrier: .notification, mtu: MTU(517)!)
        var names: [String] = []
        for index in 0..<1000 {
            let message = Message(binary: [UInt8](repeating: UInt8(index & 0xFF), count: 5000))
            var frames = chunker.frames(for: message)
            guard let first = frames.next() else { return XCTFail() }
            names += SessionHarness.eventNames(harness.feed(.notification(first), at: 20))
        }
        XCTAssertEqual(names.filter { $0 == "receiving" }.count, 5)
        XCTAssertLessThanOrEqual(names.filter { $0 == "error" || $0 == "dropped" }.count, 10)
        // A second later an honest message is announced and arrives.
        let honest = Message(text: String(repeating: "x", count: 2000))
        var events: [String] = []
        for frame in chunker.frames(for: honest) {
            events += SessionHarness.eventNames(harness.feed(.notification(frame), at: 21.5))
        }
        XCTAssertTrue(events.contains("receiving"), "\(events)")
        XCTAssertTrue(events.contains("message"), "\(events)")
    }
}
