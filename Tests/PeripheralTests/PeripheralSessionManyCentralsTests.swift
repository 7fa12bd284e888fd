import RelayApp
import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_peripheral

let centralC = BluetoothAddress("00:AA:01:03:00:03")!

/// Several centrals on one peripheral, as bluetoothd 5.66 presents them: `AcquireNotify`
/// comes once (naming the first subscriber), later subscribers enable notifications silently,
/// the socket closes only when the last one disables them; writes name their central.
/// bluetoothd cuts a notification to each link's MTU - 3 without a word, so chunks fit the smallest MTU of
/// all the centrals connected while notifications are on.
final class PeripheralSessionManyCentralsTests: XCTestCase {
    func testCentralsThatSubscribeSilentlyAreCountedAndChunkedFor() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralA))
        _ = session.handle(.connected(centralB))
        _ = session.handle(.mtu(centralB, MTU(100)!))
        XCTAssertEqual(session.handle(.notifyStarted(from: centralA, mtu: MTU(517))).eventNames, ["mtu", "subscribed"])
        XCTAssertEqual(session.subscriberCount, 2, "B may have enabled notifications: bluetoothd would not say")
        XCTAssertEqual(session.sendingMTU, MTU(100), "bluetoothd truncates B's notifications to its MTU - 3")
        XCTAssertEqual(session.handle(.connected(centralC)).eventNames, ["connected"])
        XCTAssertEqual(session.centrals[centralC]?.subscribed, true, "connected while notifications are on")
        _ = session.handle(.mtu(centralC, MTU(64)!))
        XCTAssertEqual(session.sendingMTU, MTU(64))

        _ = try session.notify(value: 9, at: 0)
        let message = Message(binary: (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        _ = try session.send(message, at: 0)
        let drained = session.drain()
        XCTAssertEqual(drained.events.first, .notified(value: 9, centrals: 3))
        XCTAssertTrue(drained.values.allSatisfy { $0.count <= 61 }, "every chunk fits the smallest link")
        XCTAssertEqual(reassemble(Array(drained.values.dropFirst())), [message])
    }

    func testTheSocketClosingUnsubscribesEveryCentralByAddress() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralB))
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)))
        _ = try session.notify(value: nil, at: 0)
        let stopped = session.handle(.notifyStopped(from: nil))
        XCTAssertEqual(
            stopped.events.prefix(2), [.unsubscribed(centralA), .unsubscribed(centralB)],
            "each one named, not 'a central'")
        XCTAssertEqual(stopped.eventNames.dropFirst(2), ["error"], "the queued counter is reported lost")
        XCTAssertFalse(session.hasSubscribers)
        XCTAssertEqual(session.centrals.values.filter(\.subscribed).count, 0)
        XCTAssertEqual(session.handle(.notifyStopped(from: nil)), [], "reported once")
        XCTAssertEqual(session.centrals.count, 2, "their links are still up: unsubscribing is not leaving")

        var anonymous = PeripheralSession.advertising()
        _ = anonymous.handle(.notifyStarted(from: nil, mtu: nil))
        XCTAssertEqual(anonymous.handle(.notifyStopped(from: nil)).events, [.unsubscribed(nil)])
    }

    func testAFreshSubscriptionAfterEveryoneLeftIsReportedAgain() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)))
        _ = session.handle(.notifyStopped(from: nil))
        _ = session.handle(.connected(centralB))
        XCTAssertEqual(session.centrals[centralB]?.subscribed, false, "connected while nobody is subscribed")
        XCTAssertEqual(
            session.handle(.notifyStarted(from: centralB, mtu: MTU(517))).events,
            [.mtu(centralB, MTU(517)!), .subscribed(centralB, mtu: MTU(517))])
        XCTAssertEqual(session.subscriberCount, 2, "A's link is up: it may have subscribed again, silently")
    }

    func testInterleavedFramesFromThreeCentralsAreToldApartByAddress() {
        var session = PeripheralSession.advertising()
        let senders = [centralA, centralB, centralC]
        // Same message id on every link (each central numbers its own messages), different sizes.
        let messages = senders.indices.map { index in
            Message(binary: (0..<(700 + index * 333)).map { UInt8(truncatingIfNeeded: $0 &* (index + 3)) })
        }
        var queues = messages.map { frames(of: $0, mtu: 23) }
        var events: [PeripheralEvent] = []
        var time = 0.0
        var round = 0
        while queues.contains(where: { !$0.isEmpty }) {
            round += 1
            for index in senders.indices where !queues[index].isEmpty {
                time += 0.01
                events +=
                    session.handle(.written(queues[index].removeFirst(), from: senders[index], mtu: nil), at: time)
                    .events
            }
            if round == 10 {  // a counter from each, between two frames of its message
                for index in senders.indices {
                    events +=
                        session.handle(
                            .written(Counter(UInt32(100 * (index + 1))).encoded, from: senders[index], mtu: nil),
                            at: time
                        ).events
                }
            }
        }
        var delivered: [BluetoothAddress: String] = [:]
        var counters: [BluetoothAddress: [UInt32]] = [:]
        for event in events {
            switch event {
            case .transfer(.message(let report)): delivered[report.from.address!] = report.sha256
            case .transfer(.counter(let from, let value)): counters[from.address!, default: []].append(value.value)
            case .connected: break
            default: XCTFail("unexpected \(event)")
            }
        }
        for (index, sender) in senders.enumerated() {
            XCTAssertEqual(delivered[sender], SHA256.hash(messages[index].bytes).hex, "\(sender)'s message intact")
            XCTAssertEqual(counters[sender], [UInt32(100 * (index + 1))], "\(sender)'s counter is its own")
            XCTAssertEqual(session.centrals[sender]?.inbound.messages, 1)
        }
    }

    func testACentralKilledMidMessageDisturbsNobodyElse() throws {
        var session = PeripheralSession.advertising()
        _ = session.handle(.connected(centralA))
        _ = session.handle(.connected(centralB))
        _ = session.handle(.notifyStarted(from: centralC, mtu: MTU(517)))
        let big = frames(of: Message(binary: Array(repeating: 1, count: 5000)), mtu: 100)
        let messageA = Message(text: String(repeating: "a", count: 900))
        let messageB = Message(binary: Array(repeating: 2, count: 1200))
        var chunksA = frames(of: messageA, mtu: 100)
        var chunksB = frames(of: messageB, mtu: 100)
        var events: [PeripheralEvent] = []
        // C (the first subscriber) writes three frames of its message, then its process dies.
        // The others are still subscribed, so bluetoothd says nothing about C.
        for (index, chunk) in big.prefix(3).enumerated() {
            events += session.handle(.written(chunk, from: centralC, mtu: nil), at: Double(index)).events
        }
        _ = try session.send(Message(text: "to everyone"), at: 0)
        var time = 3.0
        // A and B keep writing, slowly, well past the short idle time-out.
        while !chunksA.isEmpty || !chunksB.isEmpty {
            time += 2
            events += session.handle(.tick, at: time).events
            if !chunksA.isEmpty {
                events += session.handle(.written(chunksA.removeFirst(), from: centralA, mtu: nil), at: time).events
            }
            if !chunksB.isEmpty {
                events += session.handle(.written(chunksB.removeFirst(), from: centralB, mtu: nil), at: time).events
            }
        }
        XCTAssertGreaterThan(time, 2 + PeripheralSession.reassemblyIdleTimeout, "A and B sent for longer than 10 s")
        XCTAssertEqual(events.filter { $0.name == "dropped" }, [], "C may still be subscribed: its message waits")
        let reports = events.compactMap(\.messageReport)
        XCTAssertEqual(Set(reports.map(\.from.address)), [centralA, centralB])
        XCTAssertEqual(reports.first { $0.from.address == centralA }?.text, messageA.text)
        XCTAssertEqual(reports.first { $0.from.address == centralB }?.sha256, SHA256.hash(messageB.bytes).hex)
        XCTAssertTrue(session.hasSubscribers, "A and B still get notifications")
        XCTAssertEqual(
            session.drain().events.map(\.name), ["sent", "unconfirmed", "unconfirmed", "unconfirmed"],
            "the broadcast was not abandoned; version 1: unconfirmed for each central that may hear it")

        // After the long time-out C's partial message goes, and only C's.
        XCTAssertEqual(session.nextReassemblyDeadline, 2 + PeripheralSession.subscribedReassemblyIdleTimeout)
        let drops = session.handle(.tick, at: 2 + PeripheralSession.subscribedReassemblyIdleTimeout).events
        guard let drop = drops.first?.drop, drops.count == 1 else {
            return XCTFail("expected one drop, got \(drops)")
        }
        XCTAssertEqual(drop.from, centralC)
        XCTAssertEqual(drop.partial.total, 5000)
        XCTAssertGreaterThan(drop.partial.received, 0)

        // C's link finally drops: reported and freed, no second drop, the others stay.
        XCTAssertEqual(session.handle(.disconnected(centralC)).events, [.disconnected(centralC)])
        XCTAssertEqual(Set(session.centrals.keys), [centralA, centralB])
        XCTAssertTrue(session.hasSubscribers)
    }

    func testASubscribedCentralPausingMidMessageKeepsItsMessage() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)))
        let message = Message(binary: (0..<2000).map { UInt8(truncatingIfNeeded: $0) })
        let chunks = frames(of: message, mtu: 100)
        _ = session.handle(.written(chunks[0], from: centralA, mtu: nil), at: 0)
        _ = session.handle(.written(chunks[1], from: centralA, mtu: nil), at: 0)
        XCTAssertEqual(session.handle(.tick, at: 30).events, [], "a subscribed central's link stalled for 30 s")
        var events: [PeripheralEvent] = []
        for chunk in chunks.dropFirst(2) {
            events += session.handle(.written(chunk, from: centralA, mtu: nil), at: 31).events
        }
        XCTAssertEqual(events.map(\.name), ["message"])
        XCTAssertEqual(events.first?.messageReport?.sha256, SHA256.hash(message.bytes).hex)
    }

    func testUnsubscribingShortensTheWaitForAPartialMessage() {
        var session = PeripheralSession.advertising()
        _ = session.handle(.notifyStarted(from: centralA, mtu: MTU(517)))
        let chunks = frames(of: Message(binary: Array(repeating: 4, count: 3000)), mtu: 100)
        _ = session.handle(.written(chunks[0], from: centralA, mtu: nil), at: 0)
        XCTAssertEqual(session.nextReassemblyDeadline, PeripheralSession.subscribedReassemblyIdleTimeout)
        XCTAssertEqual(session.handle(.tick, at: 15).events, [])
        // The central's process died: bluetoothd closes the notification socket, the link stays.
        XCTAssertEqual(session.handle(.notifyStopped(from: nil)).events, [.unsubscribed(centralA)])
        XCTAssertEqual(session.nextReassemblyDeadline, PeripheralSession.reassemblyIdleTimeout, "already past: due now")
        let events = session.handle(.tick, at: 15).events
        guard let drop = events.first?.drop, drop.from == centralA, drop.partial.total == 3000, events.count == 1 else {
            return XCTFail("expected A's partial message dropped, got \(events)")
        }
        XCTAssertGreaterThan(drop.partial.received, 0)
        XCTAssertEqual(drop.reason, .stalled(seconds: 10, subscribed: false))
        XCTAssertTrue(drop.reason.description.contains("not subscribed"), drop.reason.description)
        XCTAssertNotNil(session.centrals[centralA], "its link is still up")
    }

    func testStatusShowsWhichCentralIsMidMessage() {
        var session = PeripheralSession.advertising()
        let chunks = frames(of: Message(binary: Array(repeating: 3, count: 2000)), mtu: 100)
        _ = session.handle(.written(chunks[0], from: centralA, mtu: nil), at: 0)
        _ = session.handle(.written(chunks[1], from: centralA, mtu: nil), at: 0)
        _ = session.handle(.written(Counter(1).encoded, from: centralB, mtu: nil), at: 0)
        let status = PeripheralStatus(session: session)
        let a = status.centrals.first { $0.address == centralA }?.receiving
        XCTAssertEqual(a?.total, 2000)
        XCTAssertEqual(a?.received, session.centrals[centralA]?.inbound.progress?.received)
        XCTAssertGreaterThan(a?.received ?? 0, 0)
        XCTAssertNil(status.centrals.first { $0.address == centralB }?.receiving, "B is not sending a message")
        XCTAssertTrue(status.humanDescription.contains("receiving a message: \(a?.received ?? -1) of 2000 bytes"))
        let json = PeripheralEvent.status(status).fields.description
        XCTAssertTrue(json.contains("receiving"), json)
        _ = session.handle(.tick, at: PeripheralSession.reassemblyIdleTimeout)
        XCTAssertNil(PeripheralStatus(session: session).centrals.first { $0.address == centralA }?.receiving)
    }

    /// Issue 47: fifteen centrals on the presenter's screen: `status` numbers one line each, and
    /// `status CENTRAL` (a number from that list, or an address) shows one in detail; a number
    /// or address that names no connected central fails the command with one line.
    func testStatusNumbersFifteenCentralsAndShowsOneByNumberOrAddress() throws {
        var session = PeripheralSession.advertising()
        let addresses = (1...15).map { BluetoothAddress("00:AA:01:\(String(format: "%02X", 16 - $0)):00:01")! }
        for address in addresses {
            _ = session.handle(.connected(address))
            _ = session.handle(.written(Counter(7).encoded, from: address, mtu: nil), at: 0)
        }
        let sorted = addresses.sorted()
        XCTAssertEqual(session.listedCentrals, sorted)
        let all = PeripheralStatus(session: session)
        XCTAssertEqual(all.centrals.map(\.number), Array(1...15))
        XCTAssertEqual(all.centrals.map(\.address), sorted)
        let lines = all.humanDescription.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.contains(". 00:AA:01:") }.count, 15, "one line each")
        XCTAssertTrue(lines.contains { $0.hasPrefix("   1. \(sorted[0])  ") }, all.humanDescription)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  15. \(sorted[14])  ") }, all.humanDescription)
        XCTAssertTrue(PeripheralEvent.status(all).fields.description.contains("number"))

        let byNumber = session.handle(.command(.status(.number(3)), token: CommandToken(1)))
        guard case .program(.report(.status(let third)))? = byNumber.first else { return XCTFail("\(byNumber)") }
        XCTAssertEqual(third.centrals.map(\.address), [sorted[2]])
        XCTAssertEqual(third.only, sorted[2])
        XCTAssertTrue(third.humanDescription.contains("central 3: \(sorted[2])"), third.humanDescription)
        XCTAssertTrue(third.humanDescription.contains("received:  1 counter, 0 messages"), third.humanDescription)
        XCTAssertFalse(third.humanDescription.contains(sorted[3].description))
        XCTAssertEqual(byNumber.last, .finish(CommandToken(1), nil))

        let byAddress = session.handle(.command(.status(.address(sorted[14])), token: CommandToken(2)))
        guard case .program(.report(.status(let last)))? = byAddress.first else { return XCTFail("\(byAddress)") }
        XCTAssertEqual(last.centrals.map(\.number), [15])

        XCTAssertEqual(
            session.handle(.command(.status(.number(16)), token: CommandToken(3))),
            [.finish(CommandToken(3), .noSuchCentral(.number(16), listed: 15))])
        XCTAssertEqual(
            PeripheralProblem.noSuchCentral(.number(16), listed: 15).description,
            "no central 16: status lists 15 (1-15)")
        let stranger = BluetoothAddress("00:BB:00:00:00:01")!
        XCTAssertEqual(
            session.handle(.command(.status(.address(stranger)), token: CommandToken(4))),
            [.finish(CommandToken(4), .noSuchCentral(.address(stranger), listed: 15))])
        XCTAssertEqual(
            PeripheralProblem.noSuchCentral(.address(stranger), listed: 15).description,
            "no central 00:BB:00:00:00:01 is connected")
        XCTAssertThrowsError(try CentralChoice(parsing: "0", command: "status"))
        XCTAssertThrowsError(try CentralChoice(parsing: "first", command: "status"))
        XCTAssertEqual(try CentralChoice(parsing: "00:aa:01:01:00:01", command: "status"), .address(centralA))
    }
}
