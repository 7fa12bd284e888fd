import RelayApp
import RelayBlueZ
import RelayProtocol
import XCTest

@testable import relay_central

/// `--nus` and `connect --nus`: a link to a Nordic UART Service device, found by properties.
final class UARTLinkTests: XCTestCase {
    static let base = "/org/bluez/hci1/dev_00_AA_01_00_00_00/service0010/"
    static let first = CharacteristicID(path: base + "char0011")!
    static let second = CharacteristicID(path: base + "char0014")!

    /// Nordic's layout: 6E400002 RX (write, write without response), 6E400003 TX (notify).
    static let nordic = [
        RemoteCharacteristic(
            id: first, uuid: UARTProfile.rxCharacteristic, serviceUUID: UARTProfile.service,
            flags: [.write, .writeWithoutResponse]),
        RemoteCharacteristic(
            id: second, uuid: UARTProfile.txCharacteristic, serviceUUID: UARTProfile.service, flags: [.notify]),
    ]

    /// The micro:bit's: 6E400002 indicates (its TX), 6E400003 takes writes (its RX).
    static let microbit = [
        RemoteCharacteristic(
            id: first, uuid: UARTProfile.rxCharacteristic, serviceUUID: UARTProfile.service, flags: [.indicate]),
        RemoteCharacteristic(
            id: second, uuid: UARTProfile.txCharacteristic, serviceUUID: UARTProfile.service,
            flags: [.write, .writeWithoutResponse]),
    ]

    static func uartDevice(name: String? = "BBC micro:bit [zavit]", advertises: Bool = false) -> DeviceInfo {
        var device = SessionHarness.device(name: name, relay: false)
        if advertises { device.serviceUUIDs = [UARTProfile.service] }
        return device
    }

    /// `connect --nus ADDRESS` to a device not seen yet: an unfiltered scan finds it by address.
    private func connectUART(
        _ harness: inout SessionHarness, characteristics: [RemoteCharacteristic]
    )
        -> [CentralAction]
    {
        harness.powerOn()
        let (_, actions) = harness.command(.connectUART(.address(SessionHarness.peerAddress)))
        XCTAssertEqual(
            actions.filter { if case .startDiscovery = $0 { true } else { false } },
            [
                .startDiscovery(services: [])
            ])
        harness.feed(.discoveryStarted)
        harness.feed(.deviceUpdated(Self.uartDevice()))
        harness.feed(.connectFinished(SessionHarness.peerID, nil))
        harness.feed(.deviceUpdated(Self.uartDevice().connectedAndResolved))
        return harness.feed(.characteristicsFound(SessionHarness.peerID, characteristics))
    }

    func testTheMicrobitsSwappedCharacteristicsAreFoundByTheirProperties() {
        var harness = SessionHarness()
        let subscribe = connectUART(&harness, characteristics: Self.microbit)
        // TX indicates: StartNotify (AcquireNotify takes notifications only); RX is the second one.
        XCTAssertEqual(subscribe, [.startNotify(Self.first), .acquireWrite(Self.second)])
        harness.feed(.notifyStarted(nil))
        let ready = harness.feed(.writeAcquired(MTU(247)!))
        guard case .ready(_, let mtu, .socket, .signal, nil, _)? = SessionHarness.events(ready).first else {
            return XCTFail("\(ready)")
        }
        XCTAssertEqual(mtu, MTU(247))
        XCTAssertEqual(harness.session.status.service, .nus)
        XCTAssertNil(harness.session.status.protocolVersion)
        let json = CentralEvent.ready(
            SessionHarness.device().peer, mtu: mtu, path: .socket, notify: .signal, protocolVersion: nil
        ).fields
        XCTAssertTrue(json.contains { $0.0 == "service" && $0.1 == .string("nus") })
    }

    func testNordicsLayoutSubscribesThroughTheSocketWhenAskedAndWritesRequestsWithoutWriteCommand() {
        var settings = CentralSettings()
        settings.notifyPath = .socket
        var harness = SessionHarness(settings: settings)
        XCTAssertEqual(
            connectUART(&harness, characteristics: Self.nordic),
            [.acquireNotify(Self.second), .acquireWrite(Self.first)])

        var requestOnly = SessionHarness()
        let onlyWrite = [
            RemoteCharacteristic(
                id: Self.first, uuid: UARTProfile.rxCharacteristic, serviceUUID: UARTProfile.service, flags: [.write]),
            Self.nordic[1],
        ]
        XCTAssertEqual(
            connectUART(&requestOnly, characteristics: onlyWrite), [.startNotify(Self.second), .readMTU(Self.first)])
        requestOnly.feed(.notifyStarted(nil))
        requestOnly.feed(.mtuRead(MTU(100)!))
        let (_, send) = requestOnly.command(.send(Message(text: "hi")))
        XCTAssertEqual(send, [.send(Array("hi\n".utf8), on: .gatt(Self.first, .writeRequest))])
    }

    func testADeviceWithoutAWritableCharacteristicIsNotAUARTDevice() {
        var harness = SessionHarness()
        let notifyOnly = [Self.nordic[1]]
        let actions = connectUART(&harness, characteristics: notifyOnly)
        guard case .error(let problem)? = SessionHarness.events(actions).first else { return XCTFail("\(actions)") }
        let message = problem.description
        XCTAssertTrue(message.contains("is not a UART device"), message)
        XCTAssertTrue(message.contains("no characteristic that can be written"), message)
        XCTAssertTrue(actions.contains(.disconnect(SessionHarness.peerID)))
        var relayOnly = SessionHarness()
        let none = connectUART(&relayOnly, characteristics: SessionHarness.relayCharacteristics)
        XCTAssertTrue(SessionHarness.events(none).contains { $0.humanDescription.contains("no Nordic UART Service") })
    }

    private func readyMicrobit(mtu: Int = 23) -> SessionHarness {
        var harness = SessionHarness()
        _ = connectUART(&harness, characteristics: Self.microbit)
        harness.feed(.notifyStarted(nil))
        harness.feed(.writeAcquired(MTU(mtu)!))
        return harness
    }

    func testSendCutsTheTextOnCharacterBoundariesAtMTUMinus3WithTheLineEnding() {
        var harness = readyMicrobit(mtu: 23)
        let text = "räksmörgås 写真 🙂 and more text"
        let (token, first) = harness.command(.send(Message(text: text)))
        var written = [SessionHarness.writes(first)[0]]
        var last: [CentralAction] = []
        while true {
            last = harness.feed(.sendFinished(.sent))
            let next = SessionHarness.writes(last)
            if next.isEmpty { break }
            written += next
        }
        XCTAssertTrue(written.allSatisfy { $0.count <= 20 && String(validating: $0, as: UTF8.self) != nil })
        XCTAssertEqual(Array(written.joined()), Array((text + "\n").utf8))
        XCTAssertEqual(SessionHarness.eventNames(last), ["sent", "unconfirmed"])
        guard case .transfer(.sentText(1, let length, let values, _))? = SessionHarness.events(last).first else {
            return XCTFail("\(last)")
        }
        XCTAssertEqual(length, text.utf8.count + 1)
        XCTAssertEqual(values, written.count)
        XCTAssertEqual(SessionHarness.outcome(of: token, in: last), .success)
        XCTAssertEqual(harness.session.writing.messagesSent, 1)
    }

    func testLinesAcrossIndicationsAreMessagesViaNUSAndAnUnendedLineWaitsForTheIdleGap() {
        var harness = readyMicrobit()
        XCTAssertEqual(harness.feed(.valueChanged(Self.first, Array("hello mi".utf8)), at: 1), [])
        let line = harness.feed(.valueChanged(Self.first, Array("cro:bit\r\nA".utf8)), at: 1.1)
        let reports = SessionHarness.events(line).compactMap(\.messageReport)
        XCTAssertEqual(reports.map(\.text), ["hello micro:bit"])
        XCTAssertEqual(reports.first?.via, .nus)
        XCTAssertEqual(harness.session.nextDeadline, 1.1 + UARTLineAssembler.idleGap)
        let idle = harness.feed(.tick, at: 1.7)
        XCTAssertEqual(SessionHarness.events(idle).compactMap(\.messageReport).map(\.text), ["A"])
        XCTAssertEqual(SessionHarness.events(idle).compactMap(\.messageReport).map(\.id), [2])
    }

    func testCountersFilesAndReadsAreRefusedInOneLineOnAUARTLink() {
        var harness = readyMicrobit()
        for command in [CentralCommand.write(value: nil), .read] {
            let (token, actions) = harness.command(command)
            guard case .failure(let text)? = SessionHarness.outcome(of: token, in: actions) else {
                return XCTFail("\(actions)")
            }
            XCTAssertTrue(text.contains("use send TEXT"), text)
            XCTAssertFalse(text.contains("\n"))
            XCTAssertTrue(SessionHarness.writes(actions).isEmpty)
        }
        let binary = Message(kind: .binary, bytes: [1, 2, 3])
        let (token, actions) = harness.command(.send(binary))
        guard case .failure(let text)? = SessionHarness.outcome(of: token, in: actions) else {
            return XCTFail("\(actions)")
        }
        XCTAssertTrue(text.contains("lines of text"), text)
    }

    func testTextNotYetWrittenFailsWhenTheLinkDropsAndTheHeldLineIsDelivered() {
        var harness = readyMicrobit()
        harness.feed(.valueChanged(Self.first, Array("partial".utf8)), at: 2)
        let (token, _) = harness.command(.send(Message(text: String(repeating: "x", count: 100))))
        let lost = harness.feed(.deviceUpdated(Self.uartDevice()))
        XCTAssertEqual(SessionHarness.events(lost).compactMap(\.messageReport).map(\.text), ["partial"])
        guard case .failure(let text)? = SessionHarness.outcome(of: token, in: lost) else { return XCTFail("\(lost)") }
        XCTAssertTrue(text.hasPrefix("message 1 not sent"), text)
        XCTAssertTrue(harness.session.uart.queue.isEmpty)
    }

    func testNUSModeListsUARTDevicesOfAnyNameAndFiltersDiscoveryOnTheUARTService() {
        var settings = CentralSettings()
        settings.uart = true
        settings.name = nil
        var harness = SessionHarness(settings: settings)
        harness.powerOn()
        let (_, scan) = harness.command(.scan)
        XCTAssertEqual(scan, [.startDiscovery(services: [UARTProfile.service])])
        harness.feed(.discoveryStarted)
        let found = harness.feed(.deviceUpdated(Self.uartDevice(name: "nRF UART", advertises: true)))
        guard case .discovered(let candidate)? = SessionHarness.events(found).first else { return XCTFail("\(found)") }
        XCTAssertEqual(candidate.name, "nRF UART")
        XCTAssertTrue(harness.feed(.deviceUpdated(Self.uartDevice(name: "other", advertises: false))).isEmpty)
        // Plain `connect N` is a UART link with --nus.
        harness.command(.connect(.index(0)))
        harness.feed(.connectFinished(SessionHarness.peerID, nil))
        harness.feed(.deviceUpdated(Self.uartDevice().connectedAndResolved))
        XCTAssertEqual(
            harness.feed(.characteristicsFound(SessionHarness.peerID, Self.nordic)),
            [.startNotify(Self.second), .acquireWrite(Self.first)])
    }

    func testConnectNUSDuringARelayScanRestartsDiscoveryWithoutTheRelayFilter() {
        var harness = SessionHarness()
        harness.powerOn()
        harness.command(.scan)
        harness.feed(.discoveryStarted)
        let (_, actions) = harness.command(.connectUART(.address(SessionHarness.peerAddress)))
        XCTAssertEqual(
            actions.filter {
                switch $0 {
                case .stopDiscovery, .startDiscovery: return true
                default: return false
                }
            }, [.stopDiscovery, .startDiscovery(services: [])])
        let started = harness.feed(.discoveryStarted)
        guard case .scanning(10, .address(SessionHarness.peerAddress)?, [])? = SessionHarness.events(started).first
        else { return XCTFail("\(started)") }
        XCTAssertTrue(
            harness.feed(.deviceUpdated(Self.uartDevice())).contains(.connect(SessionHarness.peerID, timeout: 20)))
    }

    func testTraceNamesTheUARTCharacteristics() {
        var settings = CentralSettings()
        settings.trace = TraceReports(limit: nil)
        var harness = SessionHarness(settings: settings)
        _ = connectUART(&harness, characteristics: Self.microbit)
        harness.feed(.notifyStarted(nil))
        harness.feed(.writeAcquired(MTU(23)!))
        let incoming = harness.feed(.valueChanged(Self.first, Array("hi\n".utf8)), at: 3)
        let (_, outgoing) = harness.command(.send(Message(text: "yo")))
        let traced = SessionHarness.events(incoming + outgoing).compactMap { event -> String? in
            guard case .trace(let output) = event,
                case .string(let name)? = output.fields.first(where: {
                    $0.0 == "characteristic"
                })?.1
            else { return nil }
            return name
        }
        XCTAssertEqual(traced, ["nus-tx", "nus-rx"])
    }

    func testConnectTakesNUSAsAnOptionAndRefusesAnythingElse() throws {
        XCTAssertEqual(try CentralCommands.command("connect", ["--nus", "2"]), .connectUART(.index(2)))
        XCTAssertEqual(
            try CentralCommands.command("connect", ["--nus", "00:AA:01:00:00:00"]),
            .connectUART(.address(SessionHarness.peerAddress)))
        XCTAssertEqual(try CentralCommands.command("connect", ["2"]), .connect(.index(2)))
        for bad in [["--uart", "2"], ["--nus"], ["2", "--nus"], ["--nus", "x"]] {
            XCTAssertThrowsError(try CentralCommands.command("connect", bad), "\(bad)") { error in
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
    }

    func testTheNUSOptionAndTheLineEndingAreParsed() throws {
        guard case .run(let options) = try CentralOptions.parse(["--nus", "--nus-eol", "crlf"]) else {
            return XCTFail("no run")
        }
        let settings = CentralSettings(options: options)
        XCTAssertTrue(settings.uart)
        XCTAssertNil(settings.name, "any name with --nus")
        XCTAssertEqual(settings.uartEnding, .crlf)
        guard case .run(let plain) = try CentralOptions.parse([]) else { return XCTFail("no run") }
        XCTAssertEqual(CentralSettings(options: plain).name, "sample")
        XCTAssertFalse(CentralSettings(options: plain).uart)
    }
}

extension DeviceInfo {
    fileprivate var connectedAndResolved: DeviceInfo {
        var device = self
        device.connected = true
        device.servicesResolved = true
        return device
    }

    fileprivate var peer: Peer { Peer(id: id, address: address, name: name) }
}
