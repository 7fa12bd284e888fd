import RelayApp
import RelayBlueZ
import RelayCLI
import RelayEndpoint
import RelayProtocol
import RelayREPL
import RelayRuntime
import XCTest

@testable import relay_peripheral

final class PeripheralOptionsTests: XCTestCase {
    func testDefaults() throws {
        XCTAssertEqual(try PeripheralOptions.parse([]), .run(PeripheralOptions()))
        let options = PeripheralOptions()
        XCTAssertEqual(options.name.text, "sample")
        XCTAssertEqual(options.common.maxMessage, 1 << 20)
        XCTAssertFalse(options.common.json)
        XCTAssertEqual(options.common.lane, .auto, "the lane when the central offers it too")
        XCTAssertEqual(
            try PeripheralOptions.parse(["--lane", "gatt"]),
            .run(
                {
                    var o = PeripheralOptions()
                    o.common.lane = .gatt
                    return o
                }()))
    }

    func testEveryOption() throws {
        let launch = try PeripheralOptions.parse([
            "--adapter", "hci1", "--name=relay-1", "--json", "--max-message", "64K", "--save-dir", "/tmp", "--echo",
            "--notify-path", "signal", "--window", "1M", "--flight", "2.5", "--protocol", "1",
            "--advertising-interval", "20",
        ])
        var expected = PeripheralOptions()
        expected.common.window = 1 << 20
        expected.common.flight = 2.5
        expected.common.protocolVersion = 1
        expected.common.adapter = .name("hci1")
        expected.name = try AdvertisedName("relay-1")
        expected.common.json = true
        expected.common.maxMessage = 65536
        expected.common.saveDirectory = "/tmp"
        expected.echo = true
        expected.common.notifyPath = .signal
        expected.advertisingInterval = AdvertisingInterval(milliseconds: 20)!
        XCTAssertEqual(launch, .run(expected))
        XCTAssertEqual(PeripheralOptions().advertisingInterval.milliseconds, 100)
        XCTAssertEqual(PeripheralOptions().common.notifyPath, .socket, "the default stays the socket")
        XCTAssertEqual(
            try PeripheralOptions.parse(["--adapter", "00:aa:01:00:00:00"]),
            .run(
                {
                    var o = PeripheralOptions()
                    o.common.adapter = .address(BluetoothAddress("00:AA:01:00:00:00")!)
                    return o
                }()))
    }

    func testHelpAndVersion() throws {
        guard case .print(let help) = try PeripheralOptions.parse(["--help"]) else { return XCTFail() }
        for option in [
            "--adapter", "--name", "--json", "--max-message", "--save-dir", "--echo", "--notify-path", "--version",
        ] {
            XCTAssertTrue(help.contains(option), option)
        }
        XCTAssertEqual(try PeripheralOptions.parse(["--version"]), .print(PeripheralOptions.version))
    }

    func testNotifyPathChoosesWhetherAcquireNotifyIsOffered() {
        let notify = { (path: NotifyPath) in
            PeripheralGattProfile.localService(notifyPath: path).characteristics.first {
                $0.uuid == RelayProfile.notifyCharacteristic
            }
        }
        XCTAssertEqual(notify(.socket)?.supportsAcquireNotify, true)
        XCTAssertEqual(notify(.signal)?.supportsAcquireNotify, false)
        XCTAssertEqual(notify(.signal)?.flags, [.read, .notify], "the characteristic itself is the same")
    }

    /// The advertisement asks for a rotation of 1 s: on a legacy adapter Linux starts it again
    /// after a connection only when the rotation comes round (bluetoothd's default is 2 s), so
    /// this is how often a class dialling at once gets one more central in.
    func testTheAdvertisementAsksForTheShortestRotation() throws {
        let data = PeripheralGattProfile.advertisement(
            name: try AdvertisedName("sample"), interval: try XCTUnwrap(AdvertisingInterval(milliseconds: 100)))
        XCTAssertEqual(data.properties["Duration"], .uint16(1))
        XCTAssertEqual(data.properties["MinInterval"], .uint32(100))
        XCTAssertEqual(data.properties["LocalName"]?.asString, "sample")
    }

    /// No characteristic offers `AcquireWrite`, with any option: bluetoothd (5.66 to 5.82 at least)
    /// would put every central's writes into the first central's socket on 5.66, and on every
    /// version flushes the writes that arrive while an `AcquireWrite` call is unanswered, whoever
    /// sent them, into the socket it returns, each carrying whatever its ATT buffer holds by then
    /// (`pending_write_new` keeps a pointer, not a copy: a counter arrived as the next frame's
    /// first four bytes on BlueZ 5.82 in the test bed). `WriteValue` names its central and
    /// carries its own bytes.
    func testNoCharacteristicOffersAcquireWrite() {
        var services: [LocalService] = [
            PeripheralGattProfile.uartService(), PeripheralGattProfile.uartService(secure: true),
        ]
        for path in [NotifyPath.socket, .signal] {
            for sessions in [true, false] {
                for secure in [true, false] {
                    services.append(
                        PeripheralGattProfile.localService(notifyPath: path, sessions: sessions, secure: secure))
                }
            }
        }
        let characteristics = services.flatMap(\.characteristics)
        XCTAssertTrue(characteristics.contains { $0.uuid == RelayProfile.sessionCharacteristic })
        XCTAssertTrue(characteristics.contains { $0.uuid == UARTProfile.rxCharacteristic })
        for characteristic in characteristics {
            XCTAssertFalse(characteristic.supportsAcquireWrite, "\(characteristic.uuid)")
        }
    }

    func testUsageErrors() {
        let bad: [[String]] = [
            ["--adapter"], ["--adapter", "wlan0"], ["--adapter", "00:AA"], ["--name", ""],
            ["--name", String(repeating: "n", count: 30)], ["--max-message", "0"], ["--max-message", "-5"],
            ["--max-message", "lots"], ["--max-message", "99999999999999999999"], ["--frob"], ["start"], ["--json=yes"],
            ["--notify-path"], ["--notify-path", "both"], ["--notify-path", "Socket"],
            ["--save-dir", "/nonexistent/dir"], ["--advertising-interval", "19"],
            ["--advertising-interval", "10241"], ["--advertising-interval", "0.1"], ["--advertising-interval", "-20"],
            ["--advertising-interval"],
        ]
        for arguments in bad {
            XCTAssertThrowsError(try PeripheralOptions.parse(arguments), "\(arguments)") { error in
                XCTAssertTrue(error is UsageError, "\(arguments): \(error)")
                XCTAssertFalse("\(error)".isEmpty)
            }
        }
    }

    func testAdvertisedNameLimit() throws {
        XCTAssertNoThrow(try AdvertisedName(String(repeating: "a", count: 29)))
        XCTAssertThrowsError(try AdvertisedName(String(repeating: "a", count: 30))) { error in
            XCTAssertEqual(error as? AdvertisedName.Invalid, .tooLong(bytes: 30))
            XCTAssertTrue("\(error)".contains("29"))
        }
        // 10 three-byte characters are 30 bytes of UTF-8 though only 10 characters.
        XCTAssertThrowsError(try AdvertisedName(String(repeating: "€", count: 10)))
        XCTAssertNoThrow(try AdvertisedName(String(repeating: "€", count: 9)))
        XCTAssertThrowsError(try AdvertisedName("bad\nname"))
        XCTAssertThrowsError(try AdvertisedName(""))
    }
}

final class PeripheralEventTests: XCTestCase {
    func testEveryEventHasItsNameListedAndJSONFields() {
        let events: [PeripheralEvent] = [
            .state(.poweredOn, adapter: hci0), .registered, .advertising(name: "sample"), .stopped(.command),
            .connected(centralA), .disconnected(centralA), .subscribed(centralA, mtu: MTU(517)), .unsubscribed(nil),
            .mtu(centralA, MTU(185)!), counterEvent(from: centralA, 7), .notified(value: 3, centrals: 2),
            .transfer(
                .receiving(
                    from: PeerName(.central, centralA),
                    PartialMessageReport(id: 1, kind: .text, received: 1, total: 9))),
            .transfer(
                .message(
                    ReceivedMessageReport(
                        from: PeerName(.central, centralA), id: 1, message: Message(text: "hello")))),
            .transfer(
                .dropped(
                    from: PeerName(.central, centralA),
                    PartialMessageReport(id: 2, kind: .binary, received: 10, total: 100),
                    .linkEnded("disconnected"))),
            .transfer(
                .sent(
                    OutgoingMessage(
                        number: 3, id: 3, kind: .binary, length: 1024, sha256: "cd", frames: 3, mtu: MTU(517)!))),
            .transfer(
                .delivered(
                    SentMessageSummary(id: 3, length: 1024, sha256: "cd"), to: PeerName(.central, centralA), seconds: 1)
            ),
            .transfer(
                .unconfirmed(SentMessageSummary(id: 3, length: 1024, sha256: "cd"), to: PeerName(.central, centralA))),
            .transfer(.resumed(id: 3, offset: 10, total: 1024, to: PeerName(.central, centralA))),
            .transfer(.progress(id: 3, direction: .outgoing, bytes: 10, total: 1024, rate: 5, name: nil)),
            .transfer(
                .failed(
                    SentMessageSummary(id: 3, length: 1024, sha256: "cd"), to: PeerName(.central, centralA), .cancelled)
            ),
            .transfer(.protocolError(from: PeerName(.central, centralA), .session(.emptyData), suppressedBefore: 0)),
            .trace(
                .value(
                    TraceEvent(
                        elapsed: 0, direction: .incoming, characteristic: .write, peer: nil, bytes: [1, 0, 0, 0],
                        meaning: "counter 1"))),
            .trace(.summary(TraceSummary(leftOut: 2))),
            .error(.saveFailed("boom"), from: nil),
            .status(PeripheralStatus(session: .advertising())),
            .pairing(.passkey(PeerName(.central, centralA), Passkey(123)!)),
            .pairing(.paired(PeerName(.central, centralA))),
            .pairing(.failed(PeerName(.central, centralA), .notCompleted)),
            .lane(.listening(LanePSM(0x80)!)), .page(path: "/usr/share/relay/web/relay.html"),
        ]
        XCTAssertEqual(Set(events.map(\.name)), Set(PeripheralEvent.names))
        for event in events { XCTAssertFalse(event.humanDescription.isEmpty, event.name) }
    }

    func testCounterAndMessageFieldsMatchTheDocumentedNames() {
        let console = Console(format: .json, output: { _ in }, clock: { "T" })
        XCTAssertEqual(
            console.jsonLine(name: "counter", fields: counterEvent(from: centralA, 4_000_000_000).fields),
            #"{"event":"counter","time":"T","from":"00:AA:01:01:00:01","value":4000000000}"#)
        let report = ReceivedMessageReport(
            from: PeerName(.central, centralA), id: 4, message: Message(text: "hi"))
        XCTAssertEqual(
            console.jsonLine(name: "message", fields: PeripheralEvent.transfer(.message(report)).fields),
            #"{"event":"message","time":"T","from":"00:AA:01:01:00:01","id":4,"kind":"text","length":2,"#
                + #""sha256":"8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4","text":"hi","name":null,"saved":null,"via":"relay"}"#
        )
        XCTAssertEqual(
            console.jsonLine(name: "state", fields: PeripheralEvent.state(.poweredOff, adapter: hci0).fields).prefix(
                60),
            #"{"event":"state","time":"T","state":"poweredOff","adapter":"hci0""#.prefix(60))
    }
}

final class PeripheralCommandTests: XCTestCase {
    /// The commands as the REPL's table splits a line, then as relay-peripheral reads them (one
    /// function, as relay-central's `CentralCommands.command`).
    private func command(_ line: String) throws -> PeripheralCommand {
        let driver = PeripheralDriver(
            settings: PeripheralSettings(), loop: EventLoop(), console: Console(output: { _ in }))
        var table = CommandTable()
        for spec in PeripheralCommands.specs(driver: driver) { table.add(spec) }
        let invocation = try table.parse(line)
        return try PeripheralCommands.command(invocation.spec.name, invocation.arguments)
    }

    func testParsesEveryCommand() throws {
        let cases: [(String, PeripheralCommand)] = [
            ("start", .start), ("stop", .stop), ("notify", .notify(value: nil)), ("notify 41", .notify(value: 41)),
            ("notify 4294967295", .notify(value: UInt32.max)), ("status", .status(nil)),
            ("status 2", .status(.number(2))),
            ("status 00:aa:01:01:00:01", .status(.address(BluetoothAddress("00:AA:01:01:00:01")!))),
        ]
        for (line, expected) in cases {
            XCTAssertEqual(try command(line), expected, line)
        }
    }

    func testBadLinesGiveOneClearError() {
        let cases: [(String, String)] = [
            ("frobnicate", "unknown command"), ("notify -1", "must not be negative"),
            ("notify 4294967296", "out of range"), ("notify 1 2", "takes at most 1 argument"),
            ("start now", "takes no arguments"), ("send", "missing TEXT"),
        ]
        for (line, expected) in cases {
            XCTAssertThrowsError(try command(line), line) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(line): \(error)")
            }
        }
        XCTAssertThrowsError(try PeripheralCommands.command("connect", [])) { error in
            XCTAssertEqual("\(error)", "connect: not a relay-peripheral command")
        }
    }
}
