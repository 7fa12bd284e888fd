import RelayApp
import RelayEndpoint
import RelayProtocol
import XCTest

@testable import relay_peripheral

final class PeripheralSessionDataTests: XCTestCase {
    func testFourByteWritesAreCountersShownWithTheWriter() {
        var session = PeripheralSession.advertising()
        var events: [PeripheralEvent] = []
        for value: UInt32 in [0, 1, 2] {
            events += session.handle(.written(Counter(value).encoded, from: centralA, mtu: nil), at: 0).events
        }
        XCTAssertEqual(
            events,
            [
                .connected(centralA), counterEvent(from: centralA, 0), counterEvent(from: centralA, 1),
                counterEvent(from: centralA, 2),
            ],
            "a write from an unseen central also reports it connected (the Connected property may lag)")
        XCTAssertEqual(session.centrals[centralA]?.inbound.counters, 3)
        let big = session.handle(.written([0xff, 0xff, 0xff, 0xff], from: centralB, mtu: nil), at: 0).events
        XCTAssertEqual(big.last, counterEvent(from: centralB, UInt32.max))
    }

    func testNotifyCountsUpLikeTheOriginalAndNValueRestartsTheCount() throws {
        var session = PeripheralSession.advertising()
        XCTAssertThrowsError(try session.notify(value: nil, at: 0), "nobody subscribed yet") { error in
            XCTAssertTrue("\(error)".contains("subscribed"))
        }
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)))
        XCTAssertEqual(
            try session.notify(value: nil, at: 0), [.send([Counter(0).encoded], on: .notification(.notify))],
            "the first is handed over at once")
        for _ in 1..<3 { XCTAssertEqual(try session.notify(value: nil, at: 0), [], "the rest wait for it") }
        var drained = session.drain()
        XCTAssertEqual(drained.values, [Counter(0).encoded, Counter(1).encoded, Counter(2).encoded])
        XCTAssertEqual(drained.events, [0, 1, 2].map { PeripheralEvent.notified(value: $0, centrals: 1) })
        XCTAssertEqual(session.sending.nextCounter, Counter(3))
        _ = try session.notify(value: 41, at: 0)
        _ = try session.notify(value: nil, at: 0)
        drained = session.drain()
        XCTAssertEqual(drained.values, [Counter(41).encoded, Counter(42).encoded])
        XCTAssertEqual(session.sending.lastNotified, Counter(42))
    }

    /// What the original apps read from the write characteristic is the last counter a central admitted by
    /// `--allow` wrote: a refused central's value, or a frame, never becomes it (issue 30, item 13).
    func testReadsOfTheWriteCharacteristicAnswerTheLastCounterAnAdmittedCentralWrote() {
        var settings = PeripheralSettings()
        settings.allowedCentrals = [centralA]
        var session = PeripheralSession.advertising(settings)
        func readValues(_ actions: [PeripheralAction]) -> [[UInt8]] {
            actions.compactMap {
                if case .setReadValue(let value, .write) = $0 { return value } else { return nil }
            }
        }
        let counter = session.handle(.written(Counter(7).encoded, from: centralA, mtu: nil), at: 0)
        XCTAssertEqual(readValues(counter), [Counter(7).encoded])
        // Not a counter, or not from an admitted central: what reads answer stays the same.
        let frame = session.handle(.written([0xB1, 0x00, 3, 2, 9], from: centralA, mtu: nil), at: 0.1)
        XCTAssertEqual(readValues(frame), [], "a frame is not what the original apps read")
        let refused = session.handle(.written(Counter(9).encoded, from: centralB, mtu: nil), at: 0.2)
        XCTAssertEqual(readValues(refused), [], "a central --allow refuses changes nothing")
    }

    func testMessagesFromTwoCentralsAreReassembledSeparately() {
        var session = PeripheralSession.advertising()
        let textA = Message(text: String(repeating: "relay ", count: 100))
        let binaryB = Message(binary: (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let framesA = frames(of: textA, mtu: 23)
        let framesB = frames(of: binaryB, mtu: 185)
        var events: [PeripheralEvent] = []
        for index in 0..<max(framesA.count, framesB.count) {
            if index < framesA.count {
                events += session.handle(.written(framesA[index], from: centralA, mtu: MTU(23)), at: 0).events
            }
            if index < framesB.count {
                events += session.handle(.written(framesB[index], from: centralB, mtu: MTU(185)), at: 0).events
            }
        }
        let messages = events.compactMap(\.messageReport)
        XCTAssertEqual(messages.count, 2)
        let fromA = messages.first { $0.from.address == centralA }
        XCTAssertEqual(fromA?.text, textA.text)
        XCTAssertEqual(fromA?.kind, .text)
        XCTAssertEqual(fromA?.sha256, SHA256.hash(textA.bytes).hex)
        let fromB = messages.first { $0.from.address == centralB }
        XCTAssertNil(fromB?.text)
        XCTAssertEqual(fromB?.length, 3000)
        XCTAssertEqual(fromB?.sha256, SHA256.hash(binaryB.bytes).hex)
        XCTAssertFalse(events.contains { $0.name == "error" })
        XCTAssertEqual(session.centrals[centralA]?.mtu, MTU(23))
        XCTAssertEqual(session.centrals[centralB]?.mtu, MTU(185))
    }

    func testCountersInterleavedWithAMessageDoNotDisturbIt() {
        var session = PeripheralSession.advertising()
        let message = Message(text: String(repeating: "x", count: 200))
        var events: [PeripheralEvent] = []
        for frame in frames(of: message, mtu: 23) {
            events += session.handle(.written(frame, from: centralA, mtu: nil), at: 0).events
            events += session.handle(.written(Counter(9).encoded, from: centralA, mtu: nil), at: 0).events
        }
        XCTAssertEqual(events.filter { $0.name == "counter" }.count, frames(of: message, mtu: 23).count)
        XCTAssertEqual(events.filter { $0.name == "message" }.count, 1)
    }

    func testProtocolErrorIsReportedAndTheNextMessageArrives() {
        var session = PeripheralSession.advertising()
        let message = Message(binary: Array(repeating: 0xab, count: 100))
        var broken = frames(of: message, mtu: 23, id: 1)
        broken.remove(at: 2)  // a gap
        var events: [PeripheralEvent] = []
        for frame in broken { events += session.handle(.written(frame, from: centralA, mtu: nil), at: 0).events }
        XCTAssertEqual(events.filter { $0.name == "error" }.count, 1, "one broken message, one error line")
        XCTAssertTrue(events.contains { $0.drop?.from == centralA && $0.drop?.partial.total == 100 })
        events = []
        for frame in frames(of: message, mtu: 23, id: 2) {
            events += session.handle(.written(frame, from: centralA, mtu: nil), at: 0).events
        }
        XCTAssertEqual(events.map(\.name), ["message"])
    }

    func testGarbageAtFullSpeedIsRateLimited() {
        var session = PeripheralSession.advertising()
        var errors = 0
        for index in 0..<1000 {
            let garbage: [UInt8] = [0x00, UInt8(truncatingIfNeeded: index), 0x55]
            errors +=
                session.handle(.written(garbage, from: centralA, mtu: nil), at: Double(index) * 0.001)
                .events.filter { $0.name == "error" }.count
        }
        XCTAssertEqual(errors, InboundPipeline.reportsPerSecond, "1000 bad values within one second")
        let later = session.handle(.written([0, 1, 2], from: centralA, mtu: nil), at: 5).events
        XCTAssertEqual(later.count, 1)
        XCTAssertEqual(later.first?.name, "error")
        let line = later.first?.humanDescription ?? ""
        XCTAssertTrue(
            line.contains("(\(1000 - InboundPipeline.reportsPerSecond) more protocol errors were not shown)"), line)
        XCTAssertTrue(line.hasPrefix("error: protocol error from central \(centralA)"), line)
    }

    func testTooLargeMessageIsRefusedBeforeAllocating() {
        var settings = PeripheralSettings()
        settings.maxMessage = 1000
        var session = PeripheralSession.advertising(settings)
        let large = frames(of: Message(binary: Array(repeating: 1, count: 1001)), mtu: 517)
        let events = session.handle(.written(large[0], from: centralA, mtu: nil), at: 0).events
        XCTAssertEqual(events.map(\.name), ["connected", "error"])
        XCTAssertNil(session.centrals[centralA]?.inbound.progress)
    }

    func testDisconnectMidMessageDropsThePartialAndFreesTheCentral() {
        var session = PeripheralSession.advertising()
        let message = frames(of: Message(binary: Array(repeating: 2, count: 1000)), mtu: 23)
        for frame in message.prefix(5) { _ = session.handle(.written(frame, from: centralA, mtu: nil), at: 0) }
        let events = session.handle(.disconnected(centralA)).events
        guard let drop = events.first?.drop, drop.from == centralA, drop.partial.total == 1000 else {
            return XCTFail("\(events)")
        }
        XCTAssertGreaterThan(drop.partial.received, 0)
        XCTAssertEqual(events.last, .disconnected(centralA))
        XCTAssertNil(session.centrals[centralA])
        XCTAssertEqual(session.handle(.disconnected(centralA)), [], "a second disconnect is ignored")
        // The central comes back: a full message arrives intact.
        var again: [PeripheralEvent] = []
        for frame in message { again += session.handle(.written(frame, from: centralA, mtu: nil), at: 0).events }
        XCTAssertEqual(again.map(\.name), ["connected", "message"])
    }

    func testEchoSendsEveryCounterBack() {
        var settings = PeripheralSettings()
        settings.echo = true
        var session = PeripheralSession.advertising(settings)
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)))
        let actions = session.handle(.written(Counter(77).encoded, from: centralA, mtu: nil), at: 0)
        XCTAssertEqual(actions.notified, [Counter(77).encoded])
        XCTAssertEqual(session.drain().values, [Counter(77).encoded])
        XCTAssertEqual(session.sending.nextCounter, Counter(0), "echo does not move the notify counter")
    }

    func testSaveDirectoryTurnsMessagesIntoSaveActions() {
        var settings = PeripheralSettings()
        settings.saveDirectory = "/tmp/in"
        var session = PeripheralSession.advertising(settings)
        let message = Message(binary: [1, 2, 3, 4, 5])
        let actions = session.handle(.written(frames(of: message, mtu: 23)[0], from: centralA, mtu: nil), at: 0)
        guard case .program(.deliver(let request))? = actions.last else { return XCTFail("\(actions)") }
        XCTAssertEqual(request.content, .bytes([1, 2, 3, 4, 5]))
        XCTAssertEqual(request.directory, "/tmp/in")
        XCTAssertEqual(request.name.value, "message-0001-00_AA_01_01_00_01.bin")
        XCTAssertNil(request.report.saved, "saved once the file is written")
        XCTAssertEqual(request.report.from.address, centralA)
    }
}
