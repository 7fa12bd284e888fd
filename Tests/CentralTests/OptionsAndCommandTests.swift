import RelayBlueZ
import RelayCLI
import RelayProtocol
import RelayREPL
import RelayRuntime
import XCTest

@testable import relay_central

final class CentralOptionsTests: XCTestCase {
    func testDefaults() throws {
        XCTAssertEqual(try CentralOptions.parse([]), .run(CentralOptions()))
        let options = CentralOptions()
        XCTAssertNil(options.name)
        XCTAssertEqual(CentralSettings(options: options).name, "sample")
        XCTAssertEqual(options.scanTimeout, 10)
        XCTAssertEqual(options.common.maxMessage, 1 << 20)
        XCTAssertFalse(options.reconnect)
        XCTAssertEqual(options.writePath, .socket)
        XCTAssertEqual(options.common.notifyPath, .signal)
    }

    func testEveryOption() throws {
        let launch = try CentralOptions.parse([
            "--adapter", "hci1", "--name=lab", "--json", "--scan-timeout", "2.5", "--connect", "00:aa:01:00:00:00",
            "--reconnect", "--max-message", "64K", "--save-dir", "/tmp", "--write-path", "write-value",
            "--notify-path", "socket",
        ])
        var expected = CentralOptions()
        expected.common.adapter = .name("hci1")
        expected.name = "lab"
        expected.common.json = true
        expected.scanTimeout = 2.5
        expected.connect = .address(BluetoothAddress("00:AA:01:00:00:00")!)
        expected.reconnect = true
        expected.common.maxMessage = 65536
        expected.common.saveDirectory = "/tmp"
        expected.writePath = .writeValue
        expected.common.notifyPath = .socket
        XCTAssertEqual(launch, .run(expected))
        XCTAssertEqual(
            try CentralOptions.parse(["--connect", "sample"]),
            .run(
                {
                    var options = CentralOptions()
                    options.connect = .name("sample")
                    return options
                }()))
        XCTAssertEqual(
            try CentralOptions.parse(["--adapter", "00:aa:01:01:00:01"]),
            .run(
                {
                    var options = CentralOptions()
                    options.common.adapter = .address(BluetoothAddress("00:AA:01:01:00:01")!)
                    return options
                }()))
        guard case .print(let help) = try CentralOptions.parse(["--json", "--help"]) else { return XCTFail("no help") }
        XCTAssertTrue(help.hasPrefix("usage: relay-central "), help)
        XCTAssertEqual(try CentralOptions.parse(["--version"]), .print(CentralOptions.version))
    }

    func testUsageErrorsSayWhatIsWrong() {
        let cases: [([String], String)] = [
            (["--scan-timeout", "0"], "--scan-timeout"), (["--scan-timeout", "ten"], "--scan-timeout"),
            (["--scan-timeout"], "needs a value"), (["--adapter", "wlan0"], "--adapter"),
            (["--save-dir", "/nonexistent"], "--save-dir"),
            (["--max-message", "0"], "--max-message"), (["--max-message", "1G"], "--max-message"),
            (["--bogus"], "unknown option"), (["scan"], "unexpected argument"), (["--json=yes"], "takes no value"),
            (["--name", ""], "--name"), (["--connect", ""], "--connect"),
            (["--write-path", "acquire"], "--write-path"), (["--write-path"], "needs a value"),
            (["--notify-path", "value"], "--notify-path"), (["--notify-path"], "needs a value"),
            (["--protocol", "1", "--lane", "l2cap"], "--lane l2cap carries protocol 2's frames"),
        ]
        for (arguments, expected) in cases {
            XCTAssertThrowsError(try CentralOptions.parse(arguments), "\(arguments)") { error in
                XCTAssertTrue("\(error)".contains(expected), "\(arguments): \(error)")
            }
        }
    }
}

final class CentralCommandTests: XCTestCase {
    /// The commands as the REPL's table splits a line, then as relay-central reads them.
    private func command(_ line: String) throws -> CentralCommand {
        let driver = CentralDriver(settings: CentralSettings(), loop: EventLoop(), console: Console(output: { _ in }))
        var table = CommandTable()
        for spec in CentralCommands.specs(driver: driver) { table.add(spec) }
        let invocation = try table.parse(line)
        return try CentralCommands.command(invocation.spec.name, invocation.arguments)
    }

    func testParsesEveryCommand() throws {
        let cases: [(String, CentralCommand)] = [
            ("scan", .scan), ("scan stop", .scanStop), ("list", .list), ("connect 0", .connect(.index(0))),
            ("connect 00:aa:01:00:00:00", .connect(.address(BluetoothAddress("00:AA:01:00:00:00")!))),
            ("disconnect", .disconnect), ("write", .write(value: nil)), ("write 41", .write(value: 41)),
            ("write 4294967295", .write(value: UInt32.max)), ("read", .read), ("status", .status),
            ("  scan", .scan),
        ]
        for (line, expected) in cases {
            XCTAssertEqual(try command(line), expected, line)
        }
    }

    func testBadLinesGiveOneClearError() {
        let cases: [(String, String)] = [
            ("frobnicate", "unknown command"), ("scan now", "is not 'stop'"), ("connect", "missing argument"),
            ("connect x", "neither a list index nor an address"), ("write -1", "must not be negative"),
            ("write 4294967296", "out of range"), ("send", "missing TEXT"),
            ("list all", "takes no arguments"), ("quit", "unknown command"),
            ("connect 1 2", "give one list index or address"), ("connect --nus 1 2", "takes at most 2 arguments"),
            ("connect --uart 1", "give one list index or address"),
        ]
        for (line, expected) in cases {
            XCTAssertThrowsError(try command(line), line) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(line): \(error)")
            }
        }
    }

    func testHelpCoversEveryCommandName() {
        let driver = CentralDriver(settings: CentralSettings(), loop: EventLoop(), console: Console(output: { _ in }))
        let names = CentralCommands.specs(driver: driver).map(\.name)
        XCTAssertEqual(
            names,
            [
                "scan", "list", "connect", "disconnect", "write", "send", "send-file", "read", "status", "pair",
                "passkey",
                "unpair",
            ])
    }
}
