import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol
import XCTest

@testable import relay_peripheral

/// Protocol version 2 on the peripheral: sessions, delivery per central, version-1 centrals beside them.
final class PeripheralDeliveryTests: XCTestCase {
    static let tokenA = SessionToken(0xA)!
    static let tokenB = SessionToken(0xB)!
    static let peripheralToken = SessionToken(0x5E6F_7081)!

    private func session() -> PeripheralSession {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: Self.peripheralToken)
        return PeripheralSession.advertising(settings)
    }

    private func hello(_ token: SessionToken, _ address: BluetoothAddress, next: UInt16 = 1) -> [UInt8] {
        SessionFrame.hello(Hello(token: token, address: address, window: 65536, next: TransferID(next))).encoded
    }

    /// Every value handed over, with its characteristic, each answered `.sent`.
    private func drain(
        _ session: inout PeripheralSession
    ) -> (values: [(RelayCharacteristic, [UInt8])], events: [PeripheralEvent]) {
        var values: [(RelayCharacteristic, [UInt8])] = []
        var events: [PeripheralEvent] = []
        while let value = session.sending.inFlight {
            guard case .notification(let characteristic) = value.route else {
                XCTFail("a value in flight is a notification")
                break
            }
            values.append((characteristic, value.bytes))
            events += session.handle(.sendFinished(.notification(.notify), .took(1, full: false, paced: true))).events
        }
        return (values, events)
    }

    private func sessionFrames(_ values: [(RelayCharacteristic, [UInt8])]) -> [SessionFrame] {
        values.filter { $0.0 == .session }.compactMap { try? SessionFrame(parsing: $0.1) }
    }

    private func greet(
        _ session: inout PeripheralSession, _ token: SessionToken, _ address: BluetoothAddress
    ) -> SessionNumber? {
        _ = session.handle(.connected(address))
        let actions = session.handle(.sessionWritten(hello(token, address), from: address, mtu: MTU(517)), at: 0)
        XCTAssertTrue(
            actions.events.contains(.subscribed(address, mtu: MTU(517), protocolVersion: 2, lane: .gatt)),
            "\(actions.events)")
        for frame in sessionFrames(drain(&session).values) {
            if case .welcome(let welcome) = frame, welcome.central == token { return welcome.session }
        }
        return nil
    }

    func testAHelloGetsAWelcomeWithASessionNumber() throws {
        var session = session()
        let number = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        XCTAssertEqual(number, SessionNumber(1))
        let second = try XCTUnwrap(greet(&session, Self.tokenB, centralB))
        XCTAssertEqual(second, SessionNumber(2))
        XCTAssertTrue(session.hasSubscribers)
    }

    /// A hello names the highest version its central speaks; the welcome the lower of that and
    /// this peripheral's (3: version 2 with compact data frames). A relay of the release before
    /// says 2 and is welcomed at 2; a hello of version 1 is refused.
    func testAWelcomeNamesTheVersionBothSpeakAndAVersion1HelloIsRefused() throws {
        var session = session()
        var welcomed: [UInt8] = []
        for (version, central) in [(UInt8(4), centralA), (2, centralB)] {
            _ = session.handle(.connected(central))
            let hello = SessionFrame.hello(
                Hello(
                    version: version, token: SessionToken(UInt32(version))!, address: central, window: 65536,
                    next: TransferID(1))
            ).encoded
            _ = session.handle(.sessionWritten(hello, from: central, mtu: MTU(517)), at: 0)
            welcomed += sessionFrames(drain(&session).values).compactMap { frame -> UInt8? in
                if case .welcome(let welcome) = frame { return welcome.version } else { return nil }
            }
        }
        XCTAssertEqual(welcomed, [3, 2], "the version both speak")
        XCTAssertEqual(session.delivery.sessions.values.sorted { $0.number < $1.number }.map(\.compact), [true, false])
        let centralC = BluetoothAddress("00:AA:01:03:00:03")!
        _ = session.handle(.connected(centralC))
        var old = hello(Self.tokenB, centralC)
        old[2] = 1
        let events = session.handle(.sessionWritten(old, from: centralC, mtu: MTU(517)), at: 0.1).events
        XCTAssertEqual(events.filter { $0.name == "error" }.count, 1, "\(events)")
        XCTAssertFalse(
            sessionFrames(drain(&session).values).contains { frame in
                if case .welcome = frame { return true } else { return false }
            }, "no welcome for a hello of version 1")
    }

    func testACentralsMessageIsDeliveredAndAcknowledgedToItsSession() throws {
        var session = session()
        let number = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        let message = Message(text: "hello peripheral")
        let stream = MessageHeader(of: message).encoded + message.bytes
        let data = SessionFrame.data(DataFrame(session: number, transfer: TransferID(1), offset: 0, bytes: stream))
        let actions = session.handle(.sessionWritten(data.encoded, from: centralA, mtu: nil), at: 1)
        XCTAssertEqual(actions.events.compactMap(\.messageReport?.text), ["hello peripheral"])
        XCTAssertEqual(
            sessionFrames(drain(&session).values),
            [
                .acknowledgement(
                    Acknowledgement(
                        status: .delivered, session: number, transfer: TransferID(1), received: UInt32(stream.count)))
            ])
        // The same frame from another address is not that session's.
        XCTAssertEqual(
            session.handle(.sessionWritten(data.encoded, from: centralB, mtu: nil), at: 2).events.filter {
                $0.name == "message"
            }, [])
    }

    /// A message is `sent` when its last frame is handed over, as on the central: a last frame
    /// whose notification failed is not the message sent (it was reported at cutting, and the
    /// frame that went later was not); the frame sent again is, once.
    func testAMessageIsSentWhenItsLastFrameIsHandedOverNotWhenItIsCut() throws {
        var session = session()
        let mtu = MTU(517)!
        _ = session.handle(.connected(centralA))
        _ = session.handle(.sessionWritten(hello(Self.tokenA, centralA), from: centralA, mtu: mtu), at: 0)
        _ = try session.send(Message(binary: [UInt8](repeating: 3, count: 3000)), at: 0)
        var central = ListeningCentral(mtu: mtu)
        var events: [PeripheralEvent] = []
        var failedFinal = false
        var now = 0.0
        while central.delivered == nil, now < 30 {
            now += 0.05
            while let value = session.sending.inFlight {
                if value.final != nil, !failedFinal {
                    failedFinal = true
                    events +=
                        session.handle(
                            .sendFinished(.notification(.notify), .failed(.bluez(BlueZError(.failed, "lost")))), at: now
                        ).events
                    XCTAssertFalse(events.contains { $0.name == "sent" }, "its last frame did not go")
                    continue
                }
                // bluetoothd takes it (the outcome comes at once), then the central hears it.
                events +=
                    session.handle(.sendFinished(.notification(.notify), .took(1, full: false, paced: true)), at: now)
                    .events
                events += central.hear(value.bytes, session: &session, at: now)
            }
            events += central.tick(&session, at: now)
            events += session.handle(.tick, at: now).events
        }
        XCTAssertTrue(failedFinal, "the last frame's notification failed once")
        XCTAssertNotNil(central.delivered, "the resent last frame delivered it")
        let names = events.map(\.name).filter { $0 != "progress" }
        XCTAssertEqual(names, ["sent", "delivered"], "sent once its last frame went")
    }

    func testWithASaveFolderACentralHearsDeliveredOnlyOnceItsMessageIsSaved() throws {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: Self.peripheralToken)
        settings.delivery.savesMessages = true
        settings.saveDirectory = "/nonexistent/received"
        var session = PeripheralSession.advertising(settings)
        let number = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        var arrivals: [MessageArrival] = []
        for transfer: UInt16 in [1, 2] {
            let message = Message(text: "message \(transfer)")
            let stream = MessageHeader(of: message).encoded + message.bytes
            let data = SessionFrame.data(
                DataFrame(session: number, transfer: TransferID(transfer), offset: 0, bytes: stream))
            let actions = session.handle(.sessionWritten(data.encoded, from: centralA, mtu: nil), at: 1)
            arrivals += actions.compactMap {
                if case .program(.deliver(let arrival)) = $0 { return arrival } else { return nil }
            }
            XCTAssertEqual(sessionFrames(drain(&session).values), [], "nothing is acknowledged before the save")
        }
        XCTAssertEqual(arrivals.map(\.transfer), [TransferID(1), TransferID(2)])
        // The driver saved the first and could not save the second.
        for (arrival, saved) in zip(arrivals, [true, false]) {
            let receipt = try XCTUnwrap(arrival.receipt(saved: saved))
            XCTAssertEqual(receipt.from, PeerName(.central, centralA))
            _ = session.handle(.saved(receipt), at: 2)
        }
        XCTAssertEqual(
            sessionFrames(drain(&session).values).compactMap { frame -> AcknowledgementStatus? in
                if case .acknowledgement(let ack) = frame, ack.session == number {
                    return ack.status
                } else {
                    return nil
                }
            }, [.delivered, .notSaved])
        // Without a save folder there is nothing to wait for.
        var withoutFolder = MessageArrivals(saveDirectory: nil)
        let unsaved = withoutFolder.next(
            Message(text: "x"), id: 3, from: PeerName(.central, centralA), transfer: TransferID(3), at: 3)
        XCTAssertNil(unsaved.receipt(saved: true))
    }

    func testASendReachesSessionsOnTheSessionCharacteristicAndVersion1CentralsAsFrames() throws {
        var session = session()
        let number = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        _ = session.handle(.notifyStarted(from: centralB, mtu: MTU(517)))
        let message = Message(binary: (0..<1500).map { UInt8($0 % 7) })
        _ = try session.send(message, at: 0)
        let (values, events) = drain(&session)
        let data = sessionFrames(values).compactMap { if case .data(let data) = $0 { data } else { nil } }
        XCTAssertEqual(data.reduce(0) { $0 + $1.bytes.count }, 1511)
        XCTAssertTrue(data.allSatisfy { $0.session == number }, "one session: its number")
        XCTAssertEqual(
            reassemble(values.filter { $0.0 == .notify }.map(\.1)), [message], "version 1 on the notify characteristic")
        XCTAssertEqual(events.map(\.name), ["sent", "unconfirmed", "sent"], "one sent per protocol (version 1 first)")
        let summary = SentMessageSummary(id: 1, length: 1500, sha256: SHA256.hash(message.bytes).hex)
        XCTAssertTrue(events.contains(.transfer(.unconfirmed(summary, to: PeerName(.central, centralB)))))
        XCTAssertTrue(session.hasPendingValues, "until A acknowledges")
        let ack = SessionFrame.acknowledgement(
            Acknowledgement(status: .delivered, session: number, transfer: TransferID(1), received: 1511))
        let delivered = session.handle(.sessionWritten(ack.encoded, from: centralA, mtu: nil), at: 0.4)
        XCTAssertEqual(
            delivered.events, [.transfer(.delivered(summary, to: PeerName(.central, centralA), seconds: 0.4))])
        XCTAssertFalse(session.hasPendingValues)
    }

    func testCountersGoToEveryoneOnTheirCharacteristic() throws {
        var session = session()
        _ = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        _ = session.handle(.notifyStarted(from: centralB, mtu: MTU(517)))
        _ = try session.notify(value: 9, at: 0)
        let (values, events) = drain(&session)
        XCTAssertEqual(values.map(\.0), [.session, .notify])
        XCTAssertTrue(values.allSatisfy { $0.1 == Counter(9).encoded })
        XCTAssertEqual(events, [.notified(value: 9, centrals: 2)])
        // A counter written on the session characteristic is the writer's.
        XCTAssertEqual(
            session.handle(.sessionWritten([5, 0, 0, 0], from: centralA, mtu: nil), at: 1).events,
            [counterEvent(from: centralA, 5)])
    }

    func testADisconnectedSessionResumesOnItsNextHello() throws {
        var session = session()
        let number = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        let message = Message(binary: [UInt8](repeating: 3, count: 3000))
        let stream = MessageHeader(of: message).encoded + message.bytes
        let part = SessionFrame.data(
            DataFrame(session: number, transfer: TransferID(1), offset: 0, bytes: Array(stream[0..<1000])))
        _ = session.handle(.sessionWritten(part.encoded, from: centralA, mtu: nil), at: 1)
        _ = drain(&session)
        _ = session.handle(.disconnected(centralA), at: 2)
        XCTAssertFalse(session.hasSubscribers)
        _ = session.handle(.connected(centralA), at: 10)
        let back = session.handle(
            .sessionWritten(hello(Self.tokenA, centralA), from: centralA, mtu: nil), at: 10)
        XCTAssertEqual(back.events.map(\.name), ["subscribed"], "subscribed again: the same session resumes")
        XCTAssertEqual(session.delivery.sessions.count, 1)
        let frames = sessionFrames(drain(&session).values)
        XCTAssertEqual(
            frames.first,
            .welcome(
                Welcome(
                    version: 3, session: number, central: Self.tokenA, peripheral: Self.peripheralToken,
                    window: 65536, next: TransferID(1))))
        XCTAssertTrue(
            frames.contains(
                .acknowledgement(
                    Acknowledgement(status: .receiving, session: number, transfer: TransferID(1), received: 1000))),
            "what it holds, so the central resends only the rest")
    }

    /// Tokens are notified in clear in welcomes: a hello with the token of a session opened from another
    /// address is refused, paced at 5 lines a second, without a welcome. Before (issue 30, item 5), `greet` found
    /// a session by token alone and moved it to the writer.
    func testAnotherCentralWithAVictimsTokenTakesNothingOver() throws {
        var session = session()
        let number = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        // A's message is half way in.
        let message = Message(text: String(repeating: "v", count: 300))
        let stream = MessageHeader(of: message).encoded + message.bytes
        let first = SessionFrame.data(
            DataFrame(session: number, transfer: TransferID(1), offset: 0, bytes: Array(stream[0..<150])))
        _ = session.handle(.sessionWritten(first.encoded, from: centralA, mtu: nil), at: 1)
        _ = drain(&session)
        // B heard A's welcome (every subscriber does) and says hello with A's token.
        _ = session.handle(.connected(centralB))
        var errors: [PeripheralEvent] = []
        for attempt in 0..<8 {
            let time = 2 + Double(attempt) * 0.01
            errors += session.handle(
                .sessionWritten(hello(Self.tokenA, centralB), from: centralB, mtu: nil), at: time
            )
            .events.filter { $0.name == "error" }
        }
        XCTAssertEqual(errors.count, 5, "paced: \(errors)")
        XCTAssertEqual(
            errors.first,
            .error(.anotherCentralsToken(owner: centralA, suppressed: 0), from: centralB))
        XCTAssertFalse(
            sessionFrames(drain(&session).values).contains { if case .welcome = $0 { true } else { false } },
            "no welcome for the taker")
        XCTAssertEqual(session.delivery.sessions[number]?.address, centralA, "the session stays with A")
        // B's frames for A's session are not A's; A's own rest completes the message, once.
        let rest = SessionFrame.data(
            DataFrame(session: number, transfer: TransferID(1), offset: 150, bytes: Array(stream[150...])))
        XCTAssertEqual(
            session.handle(.sessionWritten(rest.encoded, from: centralB, mtu: nil), at: 3).events
                .compactMap(\.messageReport), [])
        XCTAssertEqual(
            session.handle(.sessionWritten(rest.encoded, from: centralA, mtu: nil), at: 4).events
                .compactMap(\.messageReport?.text), [String(repeating: "v", count: 300)])
    }

    /// A relay central that leaves is reported unsubscribed, then disconnected, once, whichever
    /// bluetoothd says first: that the session's notifications stopped, or that the link went
    /// (both orders were seen in the test bed when a relay-central quits).
    func testACentralThatLeavesReadsTheSameWhicheverBluetoothdSaysFirst() throws {
        var first = session()
        _ = try XCTUnwrap(greet(&first, Self.tokenA, centralA))
        var second = first
        let stoppedFirst =
            first.handle(.sessionNotifyStopped, at: 1).events + first.handle(.disconnected(centralA), at: 1).events
        let goneFirst =
            second.handle(.disconnected(centralA), at: 1).events + second.handle(.sessionNotifyStopped, at: 1).events
        XCTAssertEqual(stoppedFirst, [.unsubscribed(centralA), .disconnected(centralA)])
        XCTAssertEqual(goneFirst, stoppedFirst)
    }

    /// In open mode a pairing is just-works and its identity address the central's own claim: a
    /// central that claims its victim's address that way is a second link under the victim's
    /// address (said once), and its hello with the victim's token is not read.
    func testAnIdentityClaimedInAnOpenModePairingTakesNoSessionOver() throws {
        var session = session()
        let victim = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        let taker = BluetoothAddress("5A:11:22:33:44:55")!
        _ = session.handle(.connected(taker))
        XCTAssertEqual(session.handle(.identityResolved(taker, identity: centralA)).events.map(\.name), ["error"])
        let refused = session.handle(
            .sessionWritten(hello(Self.tokenA, taker), from: taker, mtu: nil), at: 1)
        XCTAssertEqual(refused, [])
        XCTAssertEqual(session.delivery.sessions[victim]?.address, centralA, "the session stays with its central")
    }

    /// A hello on a live link is welcomed at most once a second and reported `subscribed` at most every 5 s
    /// (before, a flood of 201 hellos put 201 welcomes on the air ahead of an honest central's counter: its round
    /// trip 2.6 s against 63 ms). A hello with a new token from an address welcomed less than a second ago waits
    /// for its next hello (no session restarted, no line, no welcome); at most 5 `dropped` lines a second come
    /// from one sender; an honest central's message is acknowledged all the same (issue 30, item 9).
    func testFloodsOfHellosAndBadMessagesArePacedAndBounded() throws {
        var session = session()
        let hostile = try XCTUnwrap(greet(&session, Self.tokenB, centralB))
        let honest = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        // As many hellos on a live link as are tolerated on one (see the next test for more):
        // answered, not reported, one welcome queued at a time.
        var lines: [PeripheralEvent] = []
        for index in 0..<PeripheralDelivery.maximumHellosPerWindow - 1 {
            let time = 1 + Double(index) * 0.001
            lines +=
                session.handle(
                    .sessionWritten(hello(Self.tokenB, centralB), from: centralB, mtu: nil), at: time
                )
                .events
        }
        XCTAssertEqual(lines.filter { $0.name == "subscribed" }, [], "one subscribed per link")
        XCTAssertEqual(
            sessionFrames(drain(&session).values).filter { if case .welcome = $0 { true } else { false } }.count, 1,
            "one welcome a second")
        // 500 messages whose headers are malformed, one a frame: each is refused and acknowledged,
        // at most 5 dropped lines a second and 16 frames queued for that session.
        var badHeader = MessageHeader(of: Message(text: "x")).encoded
        badHeader[0] = 0x7F  // an unknown kind
        for index in 0..<500 {
            let data = SessionFrame.data(
                DataFrame(session: hostile, transfer: TransferID(UInt16(1 + index)), offset: 0, bytes: badHeader + [1]))
            lines += session.handle(.sessionWritten(data.encoded, from: centralB, mtu: nil), at: 2).events
        }
        XCTAssertEqual(lines.filter { $0.name == "dropped" }.count, 5)
        XCTAssertLessThanOrEqual(session.delivery.outgoing.control.count, ControlFrames.maximumPerSession + 1)
        // The honest central's message is acknowledged all the same.
        let message = Message(text: "honest")
        let stream = MessageHeader(of: message).encoded + message.bytes
        let data = SessionFrame.data(DataFrame(session: honest, transfer: TransferID(1), offset: 0, bytes: stream))
        XCTAssertEqual(
            session.handle(.sessionWritten(data.encoded, from: centralA, mtu: nil), at: 2.5).events
                .compactMap(\.messageReport?.text), ["honest"])
        XCTAssertTrue(
            sessionFrames(drain(&session).values).contains {
                if case .acknowledgement(let ack) = $0 {
                    ack.session == honest && ack.status == .delivered
                } else {
                    false
                }
            })
    }

    /// When a hello needs a number and all 254 are taken, the session away the longest is ended: its
    /// messages fail (`its number was needed while it was away`) (issue 30, item 10).
    func testAddressesThatComeAndGoCannotUseUpTheSessionNumbers() throws {
        var session = session()
        func address(_ index: Int) -> BluetoothAddress {
            BluetoothAddress(bytes: [0x00, 0xBB, 0x00, 0x00, UInt8(index >> 8), UInt8(index & 0xFF)])!
        }
        // 254 centrals, each saying hello and leaving (their sessions wait for a resume).
        for index in 0..<254 {
            _ = try XCTUnwrap(greet(&session, SessionToken(UInt32(100 + index))!, address(index)))
            _ = session.handle(.disconnected(address(index)), at: Double(index) * 0.01)
        }
        XCTAssertEqual(session.delivery.sessions.count, 254)
        // An honest central still gets a number: the session away the longest gives its own up.
        let number = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        XCTAssertEqual(number, SessionNumber(1), "the first to leave")
        XCTAssertNil(session.delivery.session(of: SessionToken(100)!))
        // With every number held by a live link, the hello is refused with one line.
        var full = session
        for index in 1..<254 {
            _ = try XCTUnwrap(greet(&full, SessionToken(UInt32(1000 + index))!, address(1000 + index)))
        }
        _ = full.handle(.connected(centralB))
        let refused = full.handle(
            .sessionWritten(hello(Self.tokenB, centralB), from: centralB, mtu: nil), at: 9)
        XCTAssertEqual(refused.events.filter { $0.name == "error" }, [.error(.sessionsFull, from: centralB)])
    }

    /// More than 30 hellos within 60 s on one link cut a central off; an honest central writes at most 5,
    /// 2 s apart, each time its process starts. Counted in a sliding window since issue 46: 40 restarts over a
    /// kept link, 3 s apart, are never a breach.
    func testHellosOverAKeptLinkAreCountedInAWindowNotForTheLinksWholeLife() throws {
        // An honest relay-central restarted 40 times over a link bluetoothd keeps, a minute apart
        // in twos: never cut off (before, the 31st hello of the link cut it off).
        var session = session()
        _ = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        var errors: [PeripheralEvent] = []
        for index in 0..<40 {
            let time = 10 + Double(index) * 3
            let hello = hello(SessionToken(UInt32(0x2000 + index))!, centralA)
            errors += session.handle(.sessionWritten(hello, from: centralA, mtu: nil), at: time).events
                .filter { $0.name == "error" }
        }
        XCTAssertEqual(errors, [])
        XCTAssertEqual(session.centrals[centralA]?.cutOff, false)
        // 31 within the window still cut it off.
        var flood: [PeripheralEvent] = []
        for index in 0...PeripheralDelivery.maximumHellosPerWindow {
            let time = 200 + Double(index) * 1.5
            flood += session.handle(
                .sessionWritten(hello(Self.tokenA, centralA), from: centralA, mtu: nil), at: time
            ).events.filter { $0.name == "error" }
        }
        XCTAssertEqual(
            flood,
            [.error(.brokeProtocol(.helloFlood(count: 31, seconds: 60)), from: centralA)])
    }

    func testHellosWithEverNewTokensFromOneAddressArePaced() throws {
        var session = session()
        _ = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        var lines: [PeripheralEvent] = []
        // As many as one link tolerates, with the one that greeted and the one 2 s later.
        for index in 0..<PeripheralDelivery.maximumHellosPerWindow - 2 {
            let time = 0.5 + Double(index) * 0.005
            let hello = hello(SessionToken(UInt32(0x1000 + index))!, centralA)
            lines += session.handle(.sessionWritten(hello, from: centralA, mtu: nil), at: time).events
        }
        XCTAssertEqual(lines, [], "within a second of its welcome, a new process at that address waits")
        XCTAssertEqual(session.delivery.sessions.count, 1)
        XCTAssertEqual(session.delivery.sessions.values.first?.token, Self.tokenA)
        // Its next hello, 2 s later as a central says it again, restarts the session.
        let later = session.handle(
            .sessionWritten(hello(SessionToken(0x2000)!, centralA), from: centralA, mtu: nil), at: 3)
        XCTAssertEqual(later.events.map(\.name), ["subscribed"])
        XCTAssertEqual(session.delivery.sessions.values.first?.token, SessionToken(0x2000)!)
    }

    func testACentralThatRestartedLosesItsOldSession() throws {
        var session = session()
        _ = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        _ = try session.send(Message(binary: [UInt8](repeating: 1, count: 2000)), at: 0)
        _ = drain(&session)
        let again = session.handle(
            .sessionWritten(hello(SessionToken(0xC)!, centralA), from: centralA, mtu: MTU(517)), at: 3)
        XCTAssertEqual(again.events.map(\.name), ["failed", "subscribed"])
        guard case .transfer(.failed(_, _, let failure)) = again.events[0] else { return XCTFail() }
        XCTAssertEqual(failure, .recipientGone("the central restarted"))
        XCTAssertEqual(session.delivery.sessions.count, 1)
    }

    func testOneOfThreeLeavingDoesNotStallTheOthers() throws {
        var session = session()
        let a = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        let b = try XCTUnwrap(greet(&session, Self.tokenB, centralB))
        let centralC = BluetoothAddress("00:AA:01:03:00:03")!
        let c = try XCTUnwrap(greet(&session, SessionToken(0xC)!, centralC))
        _ = try session.send(Message(binary: [UInt8](repeating: 4, count: 1000)), at: 0)
        let first = sessionFrames(drain(&session).values)
        XCTAssertTrue(first.allSatisfy { if case .data(let data) = $0 { data.session == .everyone } else { false } })
        _ = session.handle(.disconnected(centralC), at: 0.1)
        var events: [PeripheralEvent] = []
        for number in [a, b] {
            let ack = SessionFrame.acknowledgement(
                Acknowledgement(status: .delivered, session: number, transfer: TransferID(1), received: 1011))
            events +=
                session.handle(
                    .sessionWritten(ack.encoded, from: number == a ? centralA : centralB, mtu: nil), at: 0.2
                ).events
        }
        XCTAssertEqual(events.map(\.name), ["delivered", "delivered"])
        // A second message goes to A and B meanwhile; C catches up when it is back.
        _ = try session.send(Message(text: "second"), at: 0)
        let second = sessionFrames(drain(&session).values)
        XCTAssertEqual(second.count, 1)
        _ = session.handle(.connected(centralC), at: 5)
        _ = session.handle(
            .sessionWritten(hello(SessionToken(0xC)!, centralC, next: 1), from: centralC, mtu: nil), at: 5)
        let welcomeBack = sessionFrames(drain(&session).values).compactMap { frame -> TransferID? in
            if case .welcome(let welcome) = frame { return welcome.next }
            return nil
        }
        XCTAssertEqual(welcomeBack, [TransferID(1)])
        _ = session.handle(.tick, at: 6.1)
        let catchUp = sessionFrames(drain(&session).values).compactMap {
            if case .data(let data) = $0 { data } else { nil }
        }
        XCTAssertEqual(catchUp.first?.transfer, TransferID(1), "C's share of the first message again")
        XCTAssertEqual(catchUp.first?.session, c)
    }

    /// A message sent long after the last input is timed from the command, not from that input:
    /// the session's clock stood at the handshake, so the first frame went again at the next tick
    /// (one time-out and a duplicate per message, seen in the test bed).
    func testACentralThatSaysHelloFarTooOftenIsCutOffOnceAndTheOthersGoOn() throws {
        var session = session()
        let hostile = try XCTUnwrap(greet(&session, Self.tokenB, centralB))
        let honest = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        let message = Message(text: "to both")
        _ = try session.send(message, at: 1)
        _ = drain(&session)
        var lines: [PeripheralEvent] = []
        var welcomes = 0
        var disconnects: [BluetoothAddress] = []
        for index in 0..<200 {
            let time = 2 + Double(index) * 0.01
            let actions = session.handle(
                .sessionWritten(hello(Self.tokenB, centralB), from: centralB, mtu: nil), at: time)
            lines += actions.events
            disconnects += actions.compactMap { if case .disconnect(let address) = $0 { address } else { nil } }
            welcomes +=
                sessionFrames(drain(&session).values).filter {
                    if case .welcome(let welcome) = $0 { welcome.central == Self.tokenB } else { false }
                }.count
        }
        XCTAssertEqual(
            lines.filter { $0.name == "error" },
            [
                .error(
                    .brokeProtocol(.helloFlood(count: PeripheralDelivery.maximumHellosPerWindow + 1, seconds: 60)),
                    from: centralB)
            ],
            "reported once")
        XCTAssertEqual(lines.filter { $0.name == "failed" }.count, 1, "its message fails with its session")
        XCTAssertLessThanOrEqual(welcomes, 1, "one welcome a second until it is cut off, none after")
        XCTAssertEqual(disconnects, [centralB], "its link is ended, once: what it writes costs nothing more")
        XCTAssertNil(session.delivery.sessions[hostile])
        // Its frames are not read any more; the honest central's message is delivered.
        let ack = SessionFrame.acknowledgement(
            Acknowledgement(status: .delivered, session: honest, transfer: TransferID(1), received: 18))
        let delivered = session.handle(.sessionWritten(ack.encoded, from: centralA, mtu: nil), at: 5).events
        XCTAssertEqual(delivered.map(\.name), ["delivered"])
        // A new link is a new start.
        _ = session.handle(.disconnected(centralB))
        XCTAssertNotNil(greet(&session, Self.tokenB, centralB))
    }

    /// A message that failed because its receiver was cut off names that receiver in `to` (it was null).
    func testACentralThatAcknowledgesBytesBeyondAMessageIsCutOff() throws {
        var session = session()
        let hostile = try XCTUnwrap(greet(&session, Self.tokenB, centralB))
        let honest = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        _ = try session.send(Message(text: "to both"), at: 1)
        _ = drain(&session)
        let claim = SessionFrame.acknowledgement(
            Acknowledgement(status: .receiving, session: hostile, transfer: TransferID(1), received: 0xFFFF_FF00))
        let events = session.handle(.sessionWritten(claim.encoded, from: centralB, mtu: nil), at: 2).events
        XCTAssertEqual(
            events.filter { $0.name == "error" },
            [.error(.brokeProtocol(.acknowledgedBeyondTheMessage(TransferID(1))), from: centralB)])
        XCTAssertEqual(events.filter { $0.name == "failed" }.count, 1)
        for case .transfer(.failed(_, let to, _)) in events {
            XCTAssertEqual(to, PeerName(.central, centralB), "the failure names the central cut off")
        }
        XCTAssertNil(session.delivery.sessions[hostile])
        XCTAssertTrue(
            session.handle(.sessionWritten(hello(Self.tokenB, centralB), from: centralB, mtu: nil), at: 3)
                .events.isEmpty, "its hellos are not heard on this link")
        XCTAssertFalse(
            sessionFrames(drain(&session).values).contains {
                if case .welcome(let welcome) = $0 { welcome.central == Self.tokenB } else { false }
            })
        XCTAssertNotNil(session.delivery.sessions[honest])
    }

    func testSendsToACentralThatNeverAcknowledgesAreBoundedAndFailTogether() throws {
        var session = session()
        _ = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        for index in 0..<DeliverySettings.maximumMessagesOnTheirWay {
            _ = try session.send(Message(text: "message \(index)"), at: 1)
        }
        XCTAssertThrowsError(try session.send(Message(text: "one more"), at: 1)) { error in
            XCTAssertEqual("\(error)", DeliverySettings.queueFullReason)
        }
        _ = drain(&session)
        // The central never acknowledges: at the delivery time-out every message fails at once.
        let failed = session.handle(.tick, at: 1 + 120).events.filter { $0.name == "failed" }
        XCTAssertEqual(failed.count, DeliverySettings.maximumMessagesOnTheirWay)
        let aborts = sessionFrames(drain(&session).values).filter { if case .abort = $0 { true } else { false } }
        XCTAssertEqual(aborts.count, DeliverySettings.maximumMessagesOnTheirWay, "every abort reaches the central")
        XCTAssertEqual(session.delivery.outgoing.streams.count, 0, "every stream (and file) let go")
        XCTAssertNoThrow(try session.send(Message(text: "room again"), at: 122))
    }

    func testASendIsTimedFromTheCommand() throws {
        var session = session()
        _ = try XCTUnwrap(greet(&session, Self.tokenA, centralA))
        _ = try session.send(Message(text: String(repeating: "t", count: 2000)), at: 50)
        let sent = drain(&session).values
        XCTAssertFalse(sessionFrames(sent).isEmpty)
        _ = session.handle(.tick, at: 50.2)
        XCTAssertTrue(sessionFrames(drain(&session).values).isEmpty, "nothing goes again 0.2 s after the send")
        XCTAssertEqual(session.delivery.outgoing.sender.counts.timeouts, 0)
        XCTAssertEqual(session.delivery.outgoing.sender.counts.resentBytes, 0)
    }

    func testGarbageOnTheSessionCharacteristicIsAPacedProtocolError() {
        var session = session()
        _ = session.handle(.connected(centralA))
        var errors = 0
        for index in 0..<30 {
            let events = session.handle(
                .sessionWritten([0xB2, 0x07, UInt8(index)], from: centralA, mtu: nil), at: 0.5
            ).events
            errors += events.filter { $0.name == "error" }.count
        }
        XCTAssertEqual(errors, 5)
    }

    func testProtocol1ServesNoSessionCharacteristic() {
        XCTAssertFalse(
            PeripheralGattProfile.localService(sessions: false).characteristics.contains {
                $0.uuid == RelayProfile.sessionCharacteristic
            })
        XCTAssertTrue(
            PeripheralGattProfile.localService().characteristics.contains {
                $0.uuid == RelayProfile.sessionCharacteristic
            })
    }
}

/// A large message to a central at MTU 247 over a link that loses nothing: every frame fits a
/// value, and the acknowledgements carry it through to `delivered`.
final class PeripheralDeliveryAtMTU247Tests: XCTestCase {
    func testALargeMessageIsDeliveredAtMTU247() throws {
        var settings = PeripheralSettings()
        settings.delivery = DeliverySettings(token: PeripheralDeliveryTests.peripheralToken)
        var session = PeripheralSession.advertising(settings)
        let mtu = try XCTUnwrap(MTU(247))
        _ = session.handle(.connected(centralA))
        let hello = SessionFrame.hello(
            Hello(token: PeripheralDeliveryTests.tokenA, address: centralA, window: 65536, next: TransferID(1)))
        _ = session.handle(.sessionWritten(hello.encoded, from: centralA, mtu: mtu), at: 0)
        let payload = (0..<262_144).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        _ = try session.send(Message(binary: payload), at: 0)
        var central = ListeningCentral(mtu: mtu)
        var now = 0.0
        while central.delivered == nil, now < 60 {
            now += 0.01
            while let value = session.sending.inFlight {
                XCTAssertLessThanOrEqual(value.bytes.count, mtu.maxValueLength(.notification))
                if value.route == .notification(.session) {
                    _ = central.hear(value.bytes, session: &session, at: now)
                }
                _ = session.handle(.sendFinished(.notification(.notify), .took(1, full: false, paced: true)), at: now)
            }
            _ = central.tick(&session, at: now)
            _ = session.handle(.tick, at: now)
        }
        let delivered = central.delivered
        XCTAssertEqual(delivered?.count, payload.count, "delivered after \(now) s")
        XCTAssertEqual(delivered, payload)
    }
}

/// Central A as relay-central's receiver answers the peripheral's session values: the welcome
/// sets its receiver up, data frames (compact ones too) are received, and its acknowledgements
/// are written back on the session characteristic.
private struct ListeningCentral {
    let mtu: MTU
    var receiver: TransferReceiver?
    /// The message delivered, once it was.
    var delivered: [UInt8]?

    init(mtu: MTU) { self.mtu = mtu }

    /// Hears one value the peripheral notified; the events of the session's answers to it.
    mutating func hear(_ bytes: [UInt8], session: inout PeripheralSession, at now: Double) -> [PeripheralEvent] {
        switch try? SessionValue(parsing: bytes) {
        case .frame(.welcome(let welcome))?:
            receiver = TransferReceiver(session: welcome.session)
            return perform(receiver!.linkUp(next: welcome.next, at: now), &session, at: now)
        case .frame(.data(let data))?: return perform(receiver?.receive(data, at: now) ?? [], &session, at: now)
        case .compact(let frame)?: return perform(receiver?.receive(frame, at: now) ?? [], &session, at: now)
        default: return []
        }
    }

    /// The receiver's time-outs and acknowledgements due at `now`.
    mutating func tick(_ session: inout PeripheralSession, at now: Double) -> [PeripheralEvent] {
        perform(receiver?.tick(at: now) ?? [], &session, at: now)
    }

    private mutating func perform(
        _ actions: [TransferReceiver.Action], _ session: inout PeripheralSession, at now: Double
    ) -> [PeripheralEvent] {
        var events: [PeripheralEvent] = []
        for action in actions {
            switch action {
            case .acknowledge(let ack):
                let value = SessionFrame.acknowledgement(ack).fitting(mtu.maxValueLength(.write)).encoded
                events += session.handle(.sessionWritten(value, from: centralA, mtu: mtu), at: now).events
            case .deliver(_, _, let message): delivered = message.bytes
            default: break
            }
        }
        return events
    }
}
