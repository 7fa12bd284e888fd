import Shared
import XCTest

@testable import relay_central

final class CentralOptionsTests: XCTestCase {
    func testDefaults() throws {
        XCTAssertEqual(try CentralLaunch(parsing: []), .run(CentralOptions()))
        let options = CentralOptions()
        XCTAssertEqual(options.name, "sample")
        XCTAssertEqual(options.scanTimeout, 10)
        XCTAssertEqual(options.maxMessage, 1 << 20)
        XCTAssertFalse(options.reconnect)
        XCTAssertEqual(options.writePath, .socket)
        XCTAssertEqual(options.notifyPath, .signal)
    }

    func testEveryOption() throws {
        let launch = try CentralLaunch(parsing: [
            "--adapter", "hci1", "--name=lab", "--json", "--scan-timeout", "2.5", "--connect", "00:aa:01:00:00:00",
            "--reconnect", "--max-message", "64K", "--save-dir", "/tmp/x", "--write-path", "write-value",
            "--notify-path", "socket",
        ])
        var expected = CentralOptions()
        expected.adapter = .name("hci1")
        expected.name = "lab"
        expected.json = true
        expected.scanTimeout = 2.5
        expected.connect = .address(BluetoothAddress("00:AA:01:00:00:00")!)
        expected.reconnect = true
        expected.maxMessage = 65536
        expected.saveDirectory = "/tmp/x"
        expected.writePath = .writeValue
        expected.notifyPath = .socket
        XCTAssertEqual(launch, .run(expected))
        XCTAssertEqual(try CentralLaunch(parsing: ["--connect", "sample"]), .run({
            var options = CentralOptions()
            options.connect = .name("sample")
            return options
        }()))
        XCTAssertEqual(
            try CentralLaunch(parsing: ["--adapter", "00:aa:01:01:00:01"]),
            .run({
                var options = CentralOptions()
                options.adapter = .address(BluetoothAddress("00:AA:01:01:00:01")!)
                return options
            }()))
        XCTAssertEqual(try CentralLaunch(parsing: ["--json", "--help"]), .help)
        XCTAssertEqual(try CentralLaunch(parsing: ["--version"]), .version)
    }

    func testUsageErrorsSayWhatIsWrong() {
        let cases: [([String], String)] = [
            (["--scan-timeout", "0"], "--scan-timeout"), (["--scan-timeout", "ten"], "--scan-timeout"),
            (["--scan-timeout"], "needs a value"), (["--adapter", "wlan0"], "--adapter"),
            (["--max-message", "0"], "--max-message"), (["--max-message", "1G"], "--max-message"),
            (["--bogus"], "unknown option"), (["scan"], "unexpected argument"), (["--json=yes"], "takes no value"),
            (["--name", ""], "--name"), (["--connect", ""], "--connect"),
            (["--write-path", "acquire"], "--write-path"), (["--write-path"], "needs a value"),
            (["--notify-path", "value"], "--notify-path"), (["--notify-path"], "needs a value"),
        ]
        for (arguments, expected) in cases {
            XCTAssertThrowsError(try CentralLaunch(parsing: arguments), "\(arguments)") { error in
                XCTAssertTrue("\(error)".contains(expected), "\(arguments): \(error)")
            }
        }
    }
}

final class CentralCommandTests: XCTestCase {
    func testParsesEveryCommand() throws {
        let cases: [(String, CentralCommand)] = [
            ("scan", .scan), ("scan stop", .scanStop), ("list", .list), ("connect 0", .connect(.index(0))),
            ("connect 00:aa:01:00:00:00", .connect(.address(BluetoothAddress("00:AA:01:00:00:00")!))),
            ("disconnect", .disconnect), ("write", .write(value: nil)), ("write 41", .write(value: 41)),
            ("write 4294967295", .write(value: UInt32.max)), ("send hello  world", .send(text: "hello  world")),
            ("send-file /tmp/a b.bin ", .sendFile(path: "/tmp/a b.bin")), ("read", .read), ("status", .status),
            ("  scan", .scan),
        ]
        for (line, expected) in cases {
            XCTAssertEqual(try CentralCommand.parse(line), expected, line)
        }
        XCTAssertNil(try CentralCommand.parse("   "))
        XCTAssertNil(try CentralCommand.parse("# comment"))
    }

    func testBadLinesGiveOneClearError() {
        let cases: [(String, String)] = [
            ("frobnicate", "unknown command"), ("scan now", "usage: scan"), ("connect", "usage: connect"),
            ("connect x", "neither a list index nor an address"), ("write -1", "not a counter value"),
            ("write 4294967296", "not a counter value"), ("send", "usage: send"),
            ("list all", "takes no arguments"), ("quit", "unknown command"),
            ("send a\u{1b}[2J", "control characters"),
        ]
        for (line, expected) in cases {
            XCTAssertThrowsError(try CentralCommand.parse(line), line) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(line): \(error)")
            }
        }
    }

    func testHelpCoversEveryCommandName() {
        for name in ["scan", "list", "connect", "disconnect", "write", "send", "send-file", "read", "status"]
        {
            XCTAssertNotNil(CentralCommand.info(named: name), name)
        }
    }
}
