import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol
import XCTest

@testable import relay_peripheral

/// The L2CAP lane on the peripheral (docs/protocol.md, "The L2CAP lane"): which channels it
/// keeps, what it reads from them, where its frames go, and what a channel's end does.
final class PeripheralLaneTests: XCTestCase {
    struct NoWelcome: Error {}
    static let token = SessionToken(0xA)!
    static let lane = LaneID(1)

    func session(lane: LaneChoice = .l2cap, allow: Set<BluetoothAddress>? = nil) -> PeripheralSession {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: SessionToken(0x5E6F_7081)!)
        settings.lane = lane
        settings.allowedCentrals = allow
        return PeripheralSession.advertising(settings)
    }

    func hello(_ address: BluetoothAddress) -> [UInt8] {
        SessionFrame.hello(Hello(version: 3, token: Self.token, address: address, window: 65536, next: TransferID(1)))
            .encoded
    }

    /// Hands over what waits, as the backend would: the values and the channel each went on
    /// (empty: notified on GATT), a value on two channels twice.
    func drain(_ session: inout PeripheralSession) -> [(bytes: [UInt8], lanes: [LaneID])] {
        var out: [(bytes: [UInt8], lanes: [LaneID])] = []
        _ = session.startSending()
        while true {
            if let value = session.sending.inFlight {
                out.append((value.bytes, []))
                _ = session.handle(.sendFinished(.notification(.notify), .took(1, full: false, paced: true)))
                continue
            }
            // Units handed to a channel (by actions the caller dropped, or just now).
            guard
                let id = session.lanes.ids.first(where: { (session.lanes[$0]?.outbox.handedOver ?? 0) > 0 }),
                let lane = session.lanes[id]
            else { break }
            var deframer = LaneDeframer()
            let units = Array(lane.outbox.waiting.prefix(lane.outbox.handedOver))
            for unit in units {
                out += (try? deframer.take(unit))?.map { ($0, [id]) } ?? []
            }
            _ = session.handle(.sendFinished(.lane(id), .took(units.count, full: false, paced: true)))
        }
        return out
    }

    func laneEvents(_ actions: [PeripheralAction]) -> [LaneEvent] {
        actions.compactMap { if case .program(.report(.lane(let event))) = $0 { event } else { nil } }
    }

    /// `centralA` connects, opens channel `lane` (on link `connection`) and says hello on it; the
    /// welcome's session.
    func greetOnLane(
        _ session: inout PeripheralSession, attMTU: MTU? = nil, lane: LaneID = PeripheralLaneTests.lane,
        connection: ConnectionHandle? = nil
    ) throws -> SessionNumber {
        _ = session.handle(.connected(centralA))
        if let attMTU { _ = session.handle(.mtu(centralA, attMTU)) }
        _ = session.handle(.lanePSMRead(by: centralA))
        XCTAssertEqual(
            session.handle(.laneOpened(lane, from: centralA, mtu: MTU(laneChannelMTU: 672), connection: connection)), []
        )
        _ = session.handle(.laneReceived(lane, LaneFraming.encode(hello(centralA))), at: session.now)
        for value in drain(&session) {
            if case .frame(.welcome(let welcome)) = try SessionValue(parsing: value.bytes) {
                XCTAssertEqual(value.lanes, [lane], "the welcome goes back on the channel")
                return welcome.session
            }
        }
        throw NoWelcome()
    }

    func testAChannelFromACentralNotConnectedOverGATTIsRefused() {
        var session = session()
        let actions = session.handle(.laneOpened(Self.lane, from: centralA, mtu: MTU(517)!))
        XCTAssertEqual(actions.first, PeripheralAction.closeLane(Self.lane))
        XCTAssertEqual(laneEvents(actions), [.refused(PeerName(.central, centralA), .notConnected)])
        XCTAssertTrue(session.lanes.isEmpty)
    }

    func testAChannelFromACentralThatDidNotReadThePSMOverGATTIsRefused() {
        var session = session()
        _ = session.handle(.connected(centralA))
        let actions = session.handle(.laneOpened(Self.lane, from: centralA, mtu: MTU(517)!))
        XCTAssertEqual(laneEvents(actions), [.refused(PeerName(.central, centralA), .notConnected)])
        // Its read on a link that has gone does not count on the next one.
        _ = session.handle(.lanePSMRead(by: centralA))
        _ = session.handle(.disconnected(centralA))
        _ = session.handle(.connected(centralA))
        XCTAssertEqual(
            session.handle(.laneOpened(Self.lane, from: centralA, mtu: MTU(517)!)).first,
            PeripheralAction.closeLane(Self.lane))
    }

    func testAChannelFromACentralOutsideAllowIsRefused() {
        var session = session(allow: [centralB])
        _ = session.handle(.connected(centralA))
        _ = session.handle(.lanePSMRead(by: centralA))
        let actions = session.handle(.laneOpened(Self.lane, from: centralA, mtu: MTU(517)!))
        XCTAssertEqual(laneEvents(actions), [.refused(PeerName(.central, centralA), .notAllowed)])
        XCTAssertEqual(actions.first, PeripheralAction.closeLane(Self.lane))
    }

    func testRefusalsOfAFloodOfChannelsArePaced() {
        var session = session()
        var reports = 0
        for index in 0..<50 {
            let actions = session.handle(.laneOpened(LaneID(index), from: centralA, mtu: MTU(517)!), at: 1)
            XCTAssertEqual(actions.first, PeripheralAction.closeLane(LaneID(index)))
            reports += laneEvents(actions).count
        }
        XCTAssertEqual(reports, 3, "at most 3 lines per 5 s")
    }

    func testAHelloOnTheChannelPutsTheSessionAndItsMessagesOnIt() throws {
        var session = session()
        let number = try greetOnLane(&session)
        XCTAssertEqual(session.delivery.sessions[number]?.lane, Self.lane)
        _ = try session.send(Message(binary: [UInt8](repeating: 7, count: 3000)), at: 1)
        let sent = drain(&session)
        XCTAssertFalse(sent.isEmpty)
        XCTAssertTrue(sent.allSatisfy { $0.lanes == [Self.lane] }, "every frame on the channel")
        XCTAssertTrue(sent.allSatisfy { $0.bytes.count <= 510 })
        // A counter still goes on GATT.
        _ = session.handle(.command(.notify(value: nil), token: CommandToken(1)))
        XCTAssertTrue(drain(&session).allSatisfy { $0.lanes.isEmpty })
    }

    func testDataGoesInThirtyTwoPDUValuesToACentralWithAWideLinkAndTwoToANarrowOne() throws {
        for (attribute, expected) in [(MTU(517), 7900), (nil, 490), (MTU(23), 490)] {
            var session = session()
            _ = session.handle(.connected(centralA))
            if let attribute { _ = session.handle(.mtu(centralA, attribute)) }
            _ = session.handle(.lanePSMRead(by: centralA))
            _ = session.handle(.laneOpened(Self.lane, from: centralA, mtu: MTU(laneChannelMTU: 65535)))
            _ = session.handle(.laneReceived(Self.lane, LaneFraming.encode(hello(centralA))), at: 0)
            _ = drain(&session)
            _ = try session.send(Message(binary: [UInt8](repeating: 7, count: 20000)), at: 1)
            let sent = drain(&session)
            XCTAssertTrue(sent.allSatisfy { $0.lanes == [Self.lane] }, "at MTU \(String(describing: attribute))")
            XCTAssertEqual(sent.map(\.bytes.count).max(), expected, "at MTU \(String(describing: attribute))")
        }
    }

    func testAMessageCutAnyhowOnTheChannelArrives() throws {
        var session = session()
        let number = try greetOnLane(&session)
        let message = Message(text: "over the channel")
        var stream: [UInt8] = []
        MessageHeader(of: message).encode(into: &stream)
        stream += message.bytes
        let data = SessionFrame.data(DataFrame(session: number, transfer: TransferID(1), offset: 0, bytes: stream))
        let framed = LaneFraming.encode(data.encoded)
        var delivered: [MessageArrival] = []
        for byte in framed {
            for action in session.handle(.laneReceived(Self.lane, [byte]), at: 1) {
                if case .program(.deliver(let arrival)) = action { delivered.append(arrival) }
            }
        }
        XCTAssertEqual(delivered.count, 1)
        XCTAssertEqual(delivered.first?.content, .bytes(Array("over the channel".utf8)))
    }

    func testBrokenFramingClosesTheChannelAndTheSessionWaitsForAHello() throws {
        var session = session()
        let number = try greetOnLane(&session)
        let actions = session.handle(.laneReceived(Self.lane, [0x00, 0x00]), at: 1)
        XCTAssertEqual(actions.first, PeripheralAction.closeLane(Self.lane))
        XCTAssertEqual(
            laneEvents(actions),
            [.closed(PeerName(.central, centralA), .malformed(LaneFrameError.emptyValue.description))])
        XCTAssertNil(session.lanes[Self.lane])
        XCTAssertEqual(session.delivery.sessions[number]?.linked, false)
        XCTAssertNil(session.delivery.sessions[number]?.lane)
        // Its hello on GATT brings it back, sent to on GATT.
        _ = session.handle(.sessionWritten(hello(centralA), from: centralA, mtu: MTU(517)!), at: 2)
        XCTAssertEqual(session.delivery.sessions[number]?.linked, true)
        XCTAssertTrue(drain(&session).allSatisfy { $0.lanes.isEmpty })
    }

    func testAHangUpPutsTheSessionAwayAndADisconnectClosesTheChannel() throws {
        var session = session()
        let number = try greetOnLane(&session)
        XCTAssertEqual(
            laneEvents(session.handle(.laneClosed(Self.lane))), [.closed(PeerName(.central, centralA), .hungUp)])
        XCTAssertEqual(session.delivery.sessions[number]?.linked, false)
        XCTAssertEqual(session.handle(.laneClosed(Self.lane)), [], "once")
        // A new channel, then the link drops: the channel goes with it.
        _ = session.handle(.lanePSMRead(by: centralA))
        _ = session.handle(.laneOpened(LaneID(2), from: centralA, mtu: MTU(517)!))
        XCTAssertTrue(session.handle(.disconnected(centralA)).contains(.closeLane(LaneID(2))))
        XCTAssertTrue(session.lanes.isEmpty)
    }

    func testACentralWhoseChannelHungUpIsReportedUnsubscribedWhenItsSubscriptionEnds() throws {
        var session = session()
        _ = try greetOnLane(&session)
        // Its process killed: the channel hangs up, then bluetoothd stops the session's notifications.
        XCTAssertEqual(
            laneEvents(session.handle(.laneClosed(Self.lane))), [.closed(PeerName(.central, centralA), .hungUp)])
        XCTAssertEqual(session.handle(.sessionNotifyStopped).events, [.unsubscribed(centralA)])
        // Once: a second stop finds nobody new.
        _ = session.handle(.disconnected(centralA))
        XCTAssertEqual(session.handle(.sessionNotifyStopped).events, [])
    }

    func testANewerChannelOfTheSameCentralReplacesTheOlder() throws {
        var session = session()
        _ = try greetOnLane(&session)
        let actions = session.handle(.laneOpened(LaneID(2), from: centralA, mtu: MTU(517)!))
        XCTAssertEqual(actions.first, PeripheralAction.closeLane(Self.lane))
        XCTAssertEqual(session.lanes.ids, [LaneID(2)])
    }

    /// Central A in session on its lane, central B in session on GATT (MTU 185).
    private func laneAAndGATTB() throws -> PeripheralSession {
        var session = session()
        _ = try greetOnLane(&session)
        _ = session.handle(.connected(centralB))
        let helloB = SessionFrame.hello(
            Hello(version: 3, token: SessionToken(0xB)!, address: centralB, window: 65536, next: TransferID(1)))
        _ = session.handle(.sessionWritten(helloB.encoded, from: centralB, mtu: MTU(185)!), at: 0)
        _ = drain(&session)
        return session
    }

    func testWithOneCentralOnGATTFramesAreNotifiedForEveryone() throws {
        var session = try laneAAndGATTB()
        _ = try session.send(Message(binary: [UInt8](repeating: 1, count: 2000)), at: 1)
        let sent = drain(&session)
        XCTAssertFalse(sent.isEmpty)
        XCTAssertTrue(sent.allSatisfy { $0.lanes.isEmpty }, "notified on GATT, which both hear")
        XCTAssertTrue(sent.allSatisfy { $0.bytes.count <= MTU(185)!.maxValueLength(.notification) })
    }

    /// A on its lane, B on GATT: every frame is notified, so A's frames may be lost like B's, and
    /// a frame neither acknowledged goes again for both after the usual time-out (not A's 20 s).
    func testWithOneCentralOnGATTTheLaneCentralsRepairsComeAtTheUsualTimeOut() throws {
        var session = try laneAAndGATTB()
        _ = try session.send(Message(binary: [UInt8](repeating: 1, count: 300)), at: 1)
        XCTAssertFalse(drain(&session).isEmpty)
        var repairs: [SessionNumber] = []
        for tenth in 11...40 {
            let now = Double(tenth) / 10
            _ = session.handle(.tick, at: now)
            for value in drain(&session) {
                if case .frame(.data(let data))? = try? SessionValue(parsing: value.bytes) {
                    repairs.append(data.session)
                }
            }
        }
        XCTAssertEqual(repairs.first, .everyone, "the repair is for both: A's frames went by notification too")
    }

    func testWithTheLaneOffAChannelIsRefused() {
        var session = session(lane: .gatt)
        _ = session.handle(.connected(centralA))
        _ = session.handle(.lanePSMRead(by: centralA))
        XCTAssertEqual(
            session.handle(.laneOpened(Self.lane, from: centralA, mtu: MTU(517)!)).first,
            PeripheralAction.closeLane(Self.lane))
    }

    /// A value a full channel held is let go when the channel closes: its writable readiness never comes
    /// (before, relay-peripheral sent nothing more to anyone).
    func testWhatAFullChannelHoldsGoesWithItAndTheMessageGoesOnOnGATT() throws {
        for end in ["hang-up", "disconnect"] {
            var session = session()
            let number = try greetOnLane(&session)
            let queued = try session.send(Message(binary: [UInt8](repeating: 7, count: 3000)), at: 1)
            XCTAssertTrue(queued.contains { if case .send(_, on: .lane(Self.lane)) = $0 { true } else { false } }, end)
            _ = session.handle(.sendFinished(.lane(Self.lane), .took(0, full: true, paced: true)))
            XCTAssertGreaterThan(session.lanes[Self.lane]?.outbox.bytes ?? 0, 3000, end)
            if end == "hang-up" {
                _ = session.handle(.laneClosed(Self.lane))
            } else {
                _ = session.handle(.disconnected(centralA))
                _ = session.handle(.connected(centralA))
                _ = session.handle(.lanePSMRead(by: centralA))
            }
            XCTAssertTrue(session.lanes.isEmpty, end)
            XCTAssertFalse(session.hasPendingValues && session.sending.inFlight != nil, end)
            // The central's hello on GATT is welcomed on GATT, and the message goes on there.
            _ = session.handle(.sessionWritten(hello(centralA), from: centralA, mtu: MTU(517)!), at: 2)
            let sent = drain(&session)
            XCTAssertTrue(
                sent.contains { value in
                    if case .frame(.welcome(let welcome)) = try? SessionValue(parsing: value.bytes) {
                        return welcome.session == number
                    }
                    return false
                }, end)
            XCTAssertTrue(sent.allSatisfy { $0.lanes.isEmpty }, end)
            // Nothing is stuck: what is due goes on GATT.
            _ = session.handle(.tick, at: 10)
            let later = drain(&session)
            XCTAssertFalse(later.isEmpty, end)
            XCTAssertTrue(later.allSatisfy { $0.lanes.isEmpty }, end)
        }
    }

    func testAStrangersChannelsThatComeAndGoWithoutAHelloAreNotALineEach() {
        var session = session()
        _ = session.handle(.connected(centralB))
        _ = session.handle(.lanePSMRead(by: centralB))
        var lines = 0
        for index in 0..<100 {
            lines += laneEvents(session.handle(.laneOpened(LaneID(index), from: centralB, mtu: MTU(517)!), at: 1)).count
            lines += laneEvents(session.handle(.laneClosed(LaneID(index)), at: 1)).count
            lines +=
                laneEvents(session.handle(.laneOpened(LaneID(1000 + index), from: centralB, mtu: MTU(517)!), at: 1))
                .count
            lines +=
                laneEvents(session.handle(.laneReceived(LaneID(1000 + index), [0xFF, 0xFF]), at: 1)).count
        }
        XCTAssertEqual(lines, 3, "malformed channels: at most 3 lines per 5 s; hang-ups without a session: none")
        XCTAssertTrue(session.lanes.isEmpty)
    }

    /// A channel whose socket fails (not full) is closed by the session, which decides it (the
    /// backend only says so): said as a hang-up, its session waits for a hello, the rest goes on.
    func testAChannelWhoseSocketFailedIsClosedAndItsSessionWaitsForAHello() throws {
        var session = session()
        let number = try greetOnLane(&session)
        _ = try session.send(Message(binary: [UInt8](repeating: 7, count: 3000)), at: 1)
        let actions = session.handle(.sendFinished(.lane(Self.lane), .failed(.socketFailed(errno: 104))), at: 1)
        XCTAssertEqual(actions.first, .closeLane(Self.lane))
        XCTAssertEqual(laneEvents(actions), [.closed(PeerName(.central, centralA), .hungUp)])
        XCTAssertNil(session.lanes[Self.lane])
        XCTAssertEqual(session.delivery.sessions[number]?.linked, false)
        XCTAssertEqual(
            session.handle(.sendFinished(.lane(Self.lane), .failed(.socketFailed(errno: 104))), at: 1), [],
            "a late second failure changes nothing")
    }

    /// Found in review: a channel that stays full (a central that grants no credits) held counters, UART
    /// text and other centrals' welcomes back for ever. It holds back only its own queue now, and is closed
    /// once full for 20 s of the last 30 s.
    func testAChannelThatStaysFullHoldsBackNoCounterAndIsClosedAfterTwentySecondsFull() throws {
        var session = session()
        let number = try greetOnLane(&session)
        _ = try session.send(Message(binary: [UInt8](repeating: 7, count: 3000)), at: 1)
        _ = session.handle(.sendFinished(.lane(Self.lane), .took(0, full: true, paced: true)), at: 1)
        XCTAssertEqual(session.laneStallDeadline, 1 + LaneOutbox.stallSeconds)
        // A counter goes on GATT at once: the full channel holds back only what is its own.
        let counter = session.handle(.command(.notify(value: nil), token: CommandToken(1)), at: 2)
        XCTAssertTrue(counter.contains(.send([Counter(0).encoded], on: .notification(.session))), "\(counter)")
        _ = session.handle(.sendFinished(.notification(.notify), .took(1, full: false, paced: true)), at: 2)
        XCTAssertEqual(session.handle(.tick, at: 20.9).filter { $0 == .closeLane(Self.lane) }, [])
        let actions = session.handle(.tick, at: 21.1)
        XCTAssertTrue(actions.contains(.closeLane(Self.lane)))
        XCTAssertEqual(
            laneEvents(actions), [.closed(PeerName(.central, centralA), .stalled(seconds: 20, window: 30))])
        XCTAssertNil(session.lanes[Self.lane])
        XCTAssertEqual(session.delivery.sessions[number]?.linked, false)
        XCTAssertNil(session.laneStallDeadline)
    }

    /// Centrals A (channel 1) and B (channel 2) in session on the lane.
    private func twoOnLanes(mtuB: Int = 8194) throws -> PeripheralSession {
        // Both links have data length extension (an ATT MTU of 517).
        var session = session()
        _ = try greetOnLane(&session, attMTU: MTU(517)!)
        _ = session.handle(.connected(centralB))
        _ = session.handle(.mtu(centralB, MTU(517)!))
        _ = session.handle(.lanePSMRead(by: centralB))
        XCTAssertEqual(session.handle(.laneOpened(LaneID(2), from: centralB, mtu: MTU(laneChannelMTU: mtuB))), [])
        let helloB = SessionFrame.hello(
            Hello(version: 3, token: SessionToken(0xB)!, address: centralB, window: 65536, next: TransferID(1)))
        _ = session.handle(.laneReceived(LaneID(2), LaneFraming.encode(helloB.encoded)), at: 0)
        _ = drain(&session)
        XCTAssertEqual(session.laneRoute, [Self.lane, LaneID(2)])
        return session
    }

    /// Seen in the class of fifteen: a repair for the centrals still waiting went on every channel,
    /// and the centrals that held the file already took copies of it for a quarter of a minute
    /// while the others waited for the radio.
    func testARepairGoesOnlyOnTheChannelsOfTheCentralsThatLackIt() throws {
        var session = try twoOnLanes()
        let message = Message(binary: [UInt8](repeating: 7, count: 3000))
        _ = try session.send(message, at: 1)
        let first = drain(&session).filter { isData($0.bytes) }
        XCTAssertEqual(first.map(\.lanes), [[Self.lane], [LaneID(2)]], "the frame goes on both channels at first")
        let stream = MessageHeader(of: message).encoded + message.bytes
        let ack = SessionFrame.acknowledgement(
            Acknowledgement(
                status: .delivered, session: try XCTUnwrap(session.sessionNumber(at: centralA)),
                transfer: TransferID(1),
                received: UInt32(stream.count))
        ).encoded
        let delivered = session.handle(.laneReceived(Self.lane, LaneFraming.encode(ack)), at: 1.5)
        XCTAssertEqual(delivered.events.map(\.name), ["delivered"])
        // B says nothing: its frame is sent again, on B's channel only.
        var repairs: [(bytes: [UInt8], lanes: [LaneID])] = []
        for second in 2...40 {
            _ = session.handle(.tick, at: Double(second))
            repairs += drain(&session).filter { isData($0.bytes) }
        }
        XCTAssertFalse(repairs.isEmpty, "the frame B lacks is sent again")
        XCTAssertEqual(Set(repairs.flatMap(\.lanes)), [LaneID(2)], "A holds it: none on A's channel")
    }

    private func isData(_ bytes: [UInt8]) -> Bool {
        if case .frame(.data)? = try? SessionValue(parsing: bytes) { return true }
        return false
    }

    func testAFullChannelHoldsBackOnlyItsOwnValues() throws {
        var session = try twoOnLanes()
        _ = session.handle(.sendFinished(.lane(LaneID(2)), .took(0, full: true, paced: true)), at: 0.5)
        var taken = 0
        var actions = try session.send(Message(binary: [UInt8](repeating: 1, count: 20_000)), at: 1)
        // Channel 1 takes everything it is handed, value after value; channel 2 takes nothing.
        for _ in 0..<50 {
            var next: [PeripheralAction] = []
            for case .send(let units, on: .lane(let id)) in actions {
                XCTAssertEqual(id, Self.lane, "the full channel is handed nothing more")
                taken += units.count
                next += session.handle(.sendFinished(.lane(id), .took(units.count, full: false, paced: true)), at: 1)
            }
            actions = next
            if actions.isEmpty { break }
        }
        XCTAssertGreaterThan(taken, 1)
        let held = session.lanes[LaneID(2)]?.outbox.bytes ?? 0
        XCTAssertGreaterThan(held, 0)
        XCTAssertEqual(session.lanes[Self.lane]?.outbox.bytes, 0, "channel 1 is not held behind channel 2")
        // Channel 2 can take more: it is handed what waits for it, in order.
        let again = session.handle(.carrierWritable(.lane(LaneID(2))), at: 2)
        guard case .send(let units, on: .lane(LaneID(2)))? = again.first else { return XCTFail("\(again)") }
        XCTAssertEqual(units.reduce(0) { $0 + $1.count }, held)
        // Central B leaves: its channel and what waited for it go.
        let left = session.handle(.disconnected(centralB), at: 2.1)
        XCTAssertTrue(left.contains(.closeLane(LaneID(2))))
        XCTAssertNil(session.lanes[LaneID(2)])
    }

    func testAChannelGrantingOneValueNowAndThenIsClosedOverTheWindowAndTheOtherKeepsItsPace() throws {
        // Issue 46 item 3: credits for one value every 4.9 s used to restart a 5 s stall limit
        // for ever while every other value waited behind it.
        var session = try twoOnLanes()
        var first = try session.send(Message(binary: [UInt8](repeating: 2, count: 60_000)), at: 1)
        var time = 1.0
        var closedAt: Double?
        var unitsOn1 = 0
        var counterWent = false
        while time < 40, closedAt == nil {
            time += 0.1
            var actions = session.handle(.tick, at: time) + first
            first = []
            // Every 4.9 s the trickler takes one unit and is full again.
            if (time - 1).truncatingRemainder(dividingBy: 4.9) < 0.1, session.lanes[LaneID(2)] != nil {
                actions += session.handle(.carrierWritable(.lane(LaneID(2))), at: time)
            }
            if abs(time - 10) < 0.05 {
                let counter = session.handle(.command(.notify(value: nil), token: CommandToken(1)), at: time)
                counterWent = counter.contains(.send([Counter(0).encoded], on: .notification(.session)))
                actions +=
                    counter
                    + session.handle(
                        .sendFinished(.notification(.notify), .took(1, full: false, paced: true)), at: time)
            }
            for _ in 0..<20 where !actions.isEmpty {
                var next: [PeripheralAction] = []
                for action in actions {
                    if case .closeLane(LaneID(2)) = action { closedAt = time }
                    guard case .send(let units, on: .lane(let id)) = action else { continue }
                    if id == Self.lane { unitsOn1 += units.count }
                    next += session.handle(
                        .sendFinished(
                            .lane(id), .took(id == Self.lane ? units.count : 1, full: id != Self.lane, paced: true)),
                        at: time)
                }
                actions = next
            }
        }
        let closed = try XCTUnwrap(closedAt, "the trickler's channel was never closed")
        XCTAssertEqual(closed, 21, accuracy: 1.5, "full for 20 s of the last 30")
        XCTAssertTrue(counterWent, "a counter went at once while the trickler held its channel")
        XCTAssertGreaterThan(unitsOn1, 1)
        XCTAssertEqual(session.lanes[Self.lane]?.outbox.bytes, 0, "channel 1 kept its pace meanwhile")
    }

    /// Issue 47: fifteen centrals share one controller's buffers, and a 64 KiB broadcast kept the
    /// first seven channels full without a unit for 27 s while the others took theirs; all fifteen
    /// were closed as stalled ("full for 20 s of the last 30 s") and their centrals fell back to
    /// GATT. Time full while other channels take units is the radio's: here channels 1 and 3 take
    /// a unit in turn, twice a second (about 30 s for the message), while channel 2 gets nothing.
    /// None is closed; once the radio is quiet, a channel that still takes nothing is.
    func testAChannelWaitingWhileOthersTakeTheRadioIsNotStalledAndIsClosedOnceTheRadioIsQuiet() throws {
        var session = try twoOnLanes(mtuB: 672)
        let centralC = BluetoothAddress("00:AA:01:03:00:03")!
        _ = session.handle(.connected(centralC))
        _ = session.handle(.mtu(centralC, MTU(517)!))
        _ = session.handle(.lanePSMRead(by: centralC))
        _ = session.handle(.laneOpened(LaneID(3), from: centralC, mtu: MTU(laneChannelMTU: 672)))
        let helloC = SessionFrame.hello(
            Hello(version: 3, token: SessionToken(0xC)!, address: centralC, window: 65536, next: TransferID(1)))
        _ = session.handle(.laneReceived(LaneID(3), LaneFraming.encode(helloC.encoded)), at: 0)
        _ = drain(&session)
        XCTAssertEqual(session.laneRoute, [Self.lane, LaneID(2), LaneID(3)])
        // Channel 1 is cut for its own MTU too: every channel takes one small unit per turn.
        var pending = try session.send(Message(binary: [UInt8](repeating: 4, count: 20_000)), at: 1)
        var closed: [LaneID: Double] = [:]
        var takenBy: [LaneID: Int] = [:]
        var time = 1.0
        var turn = 0
        func perform(_ actions: [PeripheralAction]) {
            for action in actions { if case .closeLane(let id) = action { closed[id] = time } }
        }
        // A socket takes one unit and is full while more wait; the radio frees one every 0.5 s.
        func hand(_ actions: [PeripheralAction]) -> [PeripheralAction] {
            var next: [PeripheralAction] = []
            for case .send(let units, on: .lane(let id)) in actions {
                takenBy[id, default: 0] += min(1, units.count)
                next += session.handle(
                    .sendFinished(.lane(id), .took(min(1, units.count), full: units.count > 1, paced: true)), at: time)
            }
            return next
        }
        while time < 42 {
            time += 0.5
            perform(pending)
            _ = hand(pending)
            pending = []
            let actions = session.handle(.tick, at: time)
            perform(actions)
            // The radio serves channels 1 and 3 in turn while either has a unit waiting.
            let busy = [Self.lane, LaneID(3)].filter { (session.lanes[$0]?.outbox.bytes ?? 0) > 0 }
            guard !busy.isEmpty else { continue }
            turn += 1
            let id = busy[turn % busy.count]
            pending = session.handle(.carrierWritable(.lane(id)), at: time)
        }
        XCTAssertEqual(closed, [:], "no channel stalled while the radio was busy")
        XCTAssertGreaterThan(takenBy[Self.lane] ?? 0, 40, "channel 1 kept its pace")
        XCTAssertGreaterThan(takenBy[LaneID(3)] ?? 0, 40, "channel 3 kept its pace")
        XCTAssertEqual(takenBy[LaneID(2)], 1, "channel 2 took its first unit only, and still waits")
        // The radio goes quiet (centrals A and C hang up) and channel 2 still takes nothing: it is
        // closed 20 s after the last unit went on another channel, not before.
        let quietSince = time
        _ = session.handle(.laneClosed(Self.lane), at: time)
        _ = session.handle(.laneClosed(LaneID(3)), at: time)
        var stalledAt: Double?
        while time < 90, stalledAt == nil {
            time += 0.5
            let actions = session.handle(.tick, at: time)
            if actions.contains(.closeLane(LaneID(2))) {
                stalledAt = time
                XCTAssertEqual(
                    laneEvents(actions), [.closed(PeerName(.central, centralB), .stalled(seconds: 20, window: 30))])
            }
        }
        XCTAssertEqual(try XCTUnwrap(stalledAt, "channel 2 was never closed"), quietSince + 20, accuracy: 2.5)
    }

    /// Values are cut for the lane, not for the smallest channel: a channel of MTU 672 cut every central's
    /// values to 670 bytes; now its own values go in several units.
    func testAChannelWithASmallMTUCutsNoOtherChannelsValues() throws {
        // A channel's MTU of 672 used to cut every central's lane values to 670 bytes.
        var session = try twoOnLanes(mtuB: 672)
        var actions = try session.send(Message(binary: [UInt8](repeating: 3, count: 20_000)), at: 1)
        var valuesOn1: [Int] = []
        var unitsOn2: [Int] = []
        var deframer = LaneDeframer()
        var valuesOn2: [Int] = []
        for _ in 0..<50 where !actions.isEmpty {
            var next: [PeripheralAction] = []
            for case .send(let units, on: .lane(let id)) in actions {
                if id == Self.lane {
                    var one = LaneDeframer()
                    valuesOn1 += units.flatMap { (try? one.take($0)) ?? [] }.map(\.count)
                } else {
                    unitsOn2 += units.map(\.count)
                    valuesOn2 += units.flatMap { (try? deframer.take($0)) ?? [] }.map(\.count)
                }
                next += session.handle(.sendFinished(.lane(id), .took(units.count, full: false, paced: true)), at: 1)
            }
            actions = next
        }
        XCTAssertGreaterThan(valuesOn1.max() ?? 0, 4000, "values are cut for the lane: \(valuesOn1)")
        XCTAssertEqual(valuesOn1, valuesOn2, "both channels carry the same values")
        XCTAssertLessThanOrEqual(unitsOn2.max() ?? 0, 672, "in units of the small channel's MTU")
    }

    /// relay's own values come whole in one service data unit or two: a value whose length field promises
    /// more than comes is closed as `malformed` 20 s after its last bytes, instead of holding the channel, and
    /// its central's session, open for ever.
    func testAValueThatNeverCompletesClosesTheChannelAsMalformed() throws {
        var session = session()
        let number = try greetOnLane(&session)
        // Whole values keep no deadline; a length that promises 4000 bytes and brings 100 does.
        _ = session.handle(.laneReceived(Self.lane, LaneFraming.encode(Counter(3).encoded)), at: 1)
        XCTAssertNil(session.laneStallDeadline)
        let promise = [0xA0, 0x0F] + [UInt8](repeating: 0x55, count: 100)
        _ = session.handle(.laneReceived(Self.lane, promise), at: 2)
        XCTAssertEqual(session.laneStallDeadline, 2 + PeripheralSession.laneValueTimeout)
        // More of the same value does not move the deadline: it counts from the value's first bytes.
        _ = session.handle(.laneReceived(Self.lane, [UInt8](repeating: 0x55, count: 100)), at: 10)
        XCTAssertEqual(session.laneStallDeadline, 2 + PeripheralSession.laneValueTimeout)
        XCTAssertEqual(session.handle(.tick, at: 21.9).filter { $0 == .closeLane(Self.lane) }, [])
        let actions = session.handle(.tick, at: 22)
        XCTAssertTrue(actions.contains(.closeLane(Self.lane)))
        XCTAssertEqual(
            laneEvents(actions),
            [
                .closed(
                    PeerName(.central, centralA),
                    .malformed("a value of 4000 bytes was incomplete after 20 s (200 of them came)"))
            ])
        XCTAssertNil(session.lanes[Self.lane])
        XCTAssertEqual(session.delivery.sessions[number]?.linked, false)
        XCTAssertNil(session.laneStallDeadline)
    }

    func testAValueCompletedByItsLastBytesClearsTheDeadlineAndTheNextStartsItsOwn() throws {
        var session = session()
        _ = try greetOnLane(&session)
        let value = LaneFraming.encode(Counter(9).encoded)
        _ = session.handle(.laneReceived(Self.lane, Array(value[0..<3])), at: 1)
        XCTAssertEqual(session.laneStallDeadline, 1 + PeripheralSession.laneValueTimeout)
        // The rest of it, and the first byte of the next value, 15 s later.
        _ = session.handle(.laneReceived(Self.lane, Array(value[3...]) + value[0..<1]), at: 16)
        XCTAssertEqual(session.laneStallDeadline, 16 + PeripheralSession.laneValueTimeout)
        _ = session.handle(.laneReceived(Self.lane, Array(value[1...])), at: 17)
        XCTAssertNil(session.laneStallDeadline)
        XCTAssertEqual(session.handle(.tick, at: 40).filter { $0 == .closeLane(Self.lane) }, [])
        XCTAssertNotNil(session.lanes[Self.lane])
    }

    /// Counters go on GATT: on a channel they are protocol errors, paced at 5 lines a second. A thousand fit
    /// in one service data unit, and each was a line and, with `--echo`, an echo (issue 46).
    func testCountersOnTheChannelAreRefusedPacedNotALineAndAnEchoEach() throws {
        // A thousand counters in one unit: counters go on GATT, so none is taken, and the protocol
        // error lines are paced (at most 5 a second), nothing queued to echo.
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: SessionToken(0x5E6F_7081)!)
        settings.lane = .l2cap
        settings.echo = true
        var session = PeripheralSession.advertising(settings)
        _ = session.handle(.connected(centralA))
        _ = session.handle(.lanePSMRead(by: centralA))
        _ = session.handle(.laneOpened(Self.lane, from: centralA, mtu: MTU(laneChannelMTU: 8194)))
        _ = session.handle(.laneReceived(Self.lane, LaneFraming.encode(hello(centralA))), at: 0)
        _ = drain(&session)
        let unit = (0..<1000).flatMap { LaneFraming.encode(Counter(UInt32($0)).encoded) }
        let actions = session.handle(.laneReceived(Self.lane, unit), at: 1)
        let events = actions.compactMap { if case .program(.report(let event)) = $0 { event } else { nil } }
        XCTAssertEqual(events.filter { $0.name == "counter" }, [])
        XCTAssertLessThanOrEqual(events.filter { $0.name == "error" }.count, 5, "\(events.prefix(8))")
        XCTAssertGreaterThanOrEqual(events.filter { $0.name == "error" }.count, 1)
        XCTAssertTrue(session.sending.sessionCounters.isEmpty, "nothing to echo")
        XCTAssertNotNil(session.lanes[Self.lane], "the channel stays: its central may send frames too")
    }

    /// One echo rule, whichever characteristic a counter was written on: back to every
    /// subscriber, the sessions (session characteristic) and the original apps (notify), as
    /// `notify` sends. (The write characteristic's counters went to the notify subscribers only.)
    func testAnEchoGoesToEverySubscriberWhereverTheCounterWasWritten() throws {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: SessionToken(0x5E6F_7081)!)
        settings.echo = true
        for written in [PeripheralInput.written, PeripheralInput.sessionWritten] {
            var session = PeripheralSession.advertising(settings)
            _ = session.handle(.connected(centralA))
            _ = session.handle(.sessionWritten(hello(centralA), from: centralA, mtu: MTU(517)), at: 0)
            _ = drain(&session)
            _ = session.handle(.notifyStarted(from: centralB, mtu: MTU(185)))
            let actions = session.handle(written(Counter(9).encoded, centralA, MTU(517)), at: 1)
            let counters = actions.compactMap {
                if case .program(.report(.transfer(.counter(_, let c)))) = $0 { c } else { nil }
            }
            XCTAssertEqual(counters, [Counter(9)], "reported once")
            var carriers = actions.compactMap { action -> RelayCharacteristic? in
                if case .send([Counter(9).encoded], .notification(let on)) = action { on } else { nil }
            }
            while let value = session.sending.inFlight {
                if value.bytes == Counter(9).encoded, case .notification(let on) = value.route, !carriers.contains(on) {
                    carriers.append(on)
                }
                _ = session.handle(.sendFinished(.notification(.notify), .took(1, full: false, paced: true)))
            }
            XCTAssertEqual(Set(carriers), [.session, .notify], "echoed on both characteristics")
        }
    }

    /// Counters waiting to be echoed to the sessions are at most 64, the newest kept.
    func testEchoedCountersWaitingForTheSessionsAreBounded() throws {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: SessionToken(0x5E6F_7081)!)
        settings.echo = true
        var session = PeripheralSession.advertising(settings)
        _ = session.handle(.connected(centralA))
        _ = session.handle(.sessionWritten(hello(centralA), from: centralA, mtu: MTU(517)), at: 0)
        _ = drain(&session)
        // 500 counters written on GATT while nothing is handed over (bluetoothd is slow).
        _ = session.handle(.sessionWritten(Counter(1).encoded, from: centralA, mtu: MTU(517)), at: 1)
        for value in 2...500 {
            _ = session.handle(
                .sessionWritten(Counter(UInt32(value)).encoded, from: centralA, mtu: MTU(517)), at: 1)
        }
        XCTAssertEqual(session.sending.sessionCounters.count, PeripheralSending.maximumSessionCounters)
        XCTAssertEqual(session.sending.sessionCounters.last?.0, Counter(500), "the newest is kept")
    }

    /// A central cut off from protocol 2 loses its L2CAP channel with its session and gets none again until
    /// it connects again (`refused`, `cut-off`), so what it writes on a channel costs nothing more; its link is
    /// ended too (issue 46, item 13).
    func testACentralCutOffFromProtocol2LosesItsChannelUntilItConnectsAgain() throws {
        var session = session()
        _ = try greetOnLane(&session)
        var actions: [PeripheralAction] = []
        for index in 0...PeripheralDelivery.maximumHellosPerWindow {
            let time = 1 + Double(index) * 0.1
            actions += session.handle(
                .laneReceived(Self.lane, LaneFraming.encode(hello(centralA))), at: time)
        }
        XCTAssertTrue(actions.contains(.closeLane(Self.lane)), "its channel closes with its session")
        XCTAssertNil(session.lanes[Self.lane])
        let again = session.handle(.laneOpened(LaneID(2), from: centralA, mtu: MTU(laneChannelMTU: 672)), at: 5)
        XCTAssertEqual(again.first, .closeLane(LaneID(2)))
        XCTAssertNil(session.lanes[LaneID(2)])
        // Connected again, it may have a channel again.
        _ = session.handle(.disconnected(centralA), at: 6)
        _ = session.handle(.connected(centralA), at: 7)
        _ = session.handle(.lanePSMRead(by: centralA), at: 7)
        XCTAssertEqual(session.handle(.laneOpened(LaneID(3), from: centralA, mtu: MTU(laneChannelMTU: 672)), at: 8), [])
        XCTAssertNotNil(session.lanes[LaneID(3)])
    }

    /// A channel whose MTU is below 492 is refused (`too-small`): a value would take hundreds of service data
    /// units on it.
    func testAChannelTooSmallForTheLanesValuesIsRefused() {
        // One channel of MTU 23 would cut every central's frames to 21 bytes.
        var session = session()
        _ = session.handle(.connected(centralA))
        _ = session.handle(.lanePSMRead(by: centralA))
        let actions = session.handle(.laneOpened(Self.lane, from: centralA, mtu: MTU(laneChannelMTU: 23)))
        XCTAssertEqual(actions.first, .closeLane(Self.lane))
        XCTAssertEqual(laneEvents(actions), [.refused(PeerName(.central, centralA), .tooSmall(23))])
        XCTAssertTrue(session.lanes.isEmpty)
        XCTAssertEqual(session.handle(.laneOpened(LaneID(2), from: centralA, mtu: MTU(laneChannelMTU: 492))), [])
    }

    func testABondedCentralsChannelNamedByItsIdentityIsItsOwn() {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: SessionToken(0x5E6F_7081)!)
        settings.lane = .l2cap
        settings.secure = true
        var session = PeripheralSession.advertising(settings)
        let identity = BluetoothAddress("00:AA:01:05:00:05")!
        _ = session.handle(.connected(centralA))
        _ = session.handle(.identityResolved(centralA, identity: identity))
        _ = session.handle(.lanePSMRead(by: centralA))
        XCTAssertEqual(session.handle(.laneOpened(Self.lane, from: identity, mtu: MTU(517)!)), [])
        XCTAssertEqual(session.lanes[Self.lane]?.address, centralA)
    }

    func testTheTraceShowsValuesSentOnTheChannels() throws {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: SessionToken(0x5E6F_7081)!)
        settings.lane = .l2cap
        settings.trace = TraceReports(limit: nil)
        var session = PeripheralSession.advertising(settings)
        _ = session.handle(.connected(centralA))
        _ = session.handle(.lanePSMRead(by: centralA))
        _ = session.handle(.laneOpened(Self.lane, from: centralA, mtu: MTU(517)!))
        let received = session.handle(.laneReceived(Self.lane, LaneFraming.encode(hello(centralA))), at: 0)
        func traced(_ actions: [PeripheralAction]) -> [TraceEvent] {
            actions.compactMap { if case .program(.report(.trace(.value(let event)))) = $0 { event } else { nil } }
        }
        // The hello that came, then the welcome queued on the channel.
        XCTAssertEqual(traced(received).map(\.characteristic), [.lane, .lane])
        XCTAssertEqual(traced(received).map(\.direction), [.incoming, .outgoing])
        XCTAssertTrue(traced(received).last?.meaning.hasPrefix("welcome") ?? false, "\(traced(received))")
        XCTAssertTrue(received.contains { if case .send(_, on: .lane(Self.lane)) = $0 { true } else { false } })
    }
}
