import XCTest

@testable import RelayCLI

final class OptionParserTests: XCTestCase {
    private let parser = OptionParser(
        program: "relay-central", summary: "The central.", version: "relay-central 1.0",
        options: [
            .value("adapter", "hciN|ADDRESS", help: "Adapter to use."),
            .flag("json", help: "JSON events."),
            .value("scan-timeout", "S", kind: .seconds(maximum: 3600), help: "Scan time-out."),
            .value("max-message", "BYTES", kind: .integer(1...16_777_216), help: "Largest message."),
        ])

    private func options(_ arguments: [String]) throws -> ParsedOptions {
        guard case .run(let options) = try parser.parse(arguments) else {
            throw UsageError("not a run")
        }
        return options
    }

    private func error(_ arguments: [String]) -> String? {
        do {
            _ = try parser.parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    func testValuesFlagsAndEqualsForm() throws {
        let parsed = try options(["--adapter", "hci1", "--json", "--scan-timeout=2.5", "--max-message", "1024"])
        XCTAssertEqual(parsed.text("adapter"), "hci1")
        XCTAssertTrue(parsed.flag("json"))
        XCTAssertEqual(parsed.seconds("scan-timeout"), 2.5)
        XCTAssertEqual(parsed.integer("max-message"), 1024)
        let empty = try options([])
        XCTAssertFalse(empty.flag("json"))
        XCTAssertNil(empty.text("adapter"))
        XCTAssertEqual(try options(["--adapter=a", "--adapter=b"]).text("adapter"), "b")
    }

    func testHelpAndVersion() throws {
        guard case .help(let text) = try parser.parse(["--json", "--help"]) else { return XCTFail("no help") }
        XCTAssertTrue(
            text.hasPrefix(
                "usage: relay-central [--adapter hciN|ADDRESS] [--json] [--scan-timeout S] [--max-message BYTES]\n"
                    + "                     [--help] [--version]\n"
            ))
        XCTAssertTrue(text.contains("  --scan-timeout S"))
        XCTAssertTrue(text.contains("Scan time-out."))
        guard case .version(let version) = try parser.parse(["--version"]) else { return XCTFail("no version") }
        XCTAssertEqual(version, "relay-central 1.0")
    }

    func testUsageErrorsSayWhatIsWrong() {
        XCTAssertEqual(error(["--frob"]), "unknown option '--frob'")
        XCTAssertEqual(error(["--jsno"]), "unknown option '--jsno'; did you mean '--json'?")
        XCTAssertEqual(error(["-x"]), "unknown option '-x'")
        XCTAssertEqual(error(["stray"]), "unexpected argument 'stray'")
        XCTAssertEqual(error(["--adapter"]), "option '--adapter' needs a value (hciN|ADDRESS)")
        XCTAssertEqual(error(["--adapter", "--json"]), "option '--adapter' needs a value (hciN|ADDRESS)")
        XCTAssertEqual(error(["--json=yes"]), "option '--json' takes no value")
        XCTAssertEqual(error(["--adapter="]), "--adapter: hciN|ADDRESS must not be empty")
        XCTAssertEqual(
            error(["--scan-timeout", "-3"]),
            "--scan-timeout: S must not be negative (expected a number of seconds greater than 0 up to 3600, got '-3')")
        XCTAssertEqual(
            error(["--max-message", "99999999999999999999"]),
            "--max-message: BYTES is out of range (expected a whole number from 1 to 16777216, got '99999999999999999999')"
        )
        XCTAssertEqual(
            error(["--max-message", "0"]),
            "--max-message: BYTES is out of range (expected a whole number from 1 to 16777216, got '0')")
    }

    func testUsageErrorTextNamesTheProgramAndShowsTheUsage() {
        let text = parser.usageErrorText(UsageError("unknown option '--frob'"))
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "relay-central: unknown option '--frob'")
        XCTAssertTrue(lines[1].hasPrefix("usage: relay-central "))
        XCTAssertEqual(lines.last, "Try 'relay-central --help' for more information.")
    }

    func testByteCountsTakeKAndMSuffixesAndChoicesNameTheWords() throws {
        let parser = OptionParser(
            program: "p", summary: "", version: "v",
            options: [
                .value("size", "BYTES", kind: .byteCount(1...(1 << 20)), help: "a size"),
                .value("path", "socket|signal", kind: .choice(["socket", "signal"]), help: "a path"),
            ])
        func parsed(_ arguments: [String]) throws -> ParsedOptions {
            guard case .run(let options) = try parser.parse(arguments) else { throw UsageError("no run") }
            return options
        }
        XCTAssertEqual(try parsed(["--size", "64K"]).byteCount("size"), 65536)
        XCTAssertEqual(try parsed(["--size", "1MiB"]).byteCount("size"), 1 << 20)
        XCTAssertEqual(try parsed(["--size", "512"]).byteCount("size"), 512)
        XCTAssertEqual(try parsed(["--path", "signal"]).text("path"), "signal")
        for (arguments, message) in [
            (["--size", "2M"], "--size: 2097152 is out of range (1 to 1048576 bytes)"),
            (["--size", "1.5K"], "--size: '1.5K' is not a byte count (e.g. 1048576, 64K or 1M)"),
            (["--size", "K"], "--size: 'K' is not a byte count (e.g. 1048576, 64K or 1M)"),
            (["--path", "both"], "--path: 'both' is neither socket nor signal"),
        ] {
            XCTAssertThrowsError(try parser.parse(arguments)) { XCTAssertEqual(($0 as? UsageError)?.message, message) }
        }
    }

    func testHelpWrapsLongLinesAtTheWidth() {
        let parser = OptionParser(
            program: "relay-example", summary: "S", version: "v",
            options: (1...12).map { .value("option-\($0)", "VALUE", help: String(repeating: "word ", count: 30)) })
        for line in parser.helpText.split(separator: "\n") {
            XCTAssertLessThanOrEqual(line.count, OptionParser.width, String(line))
        }
        XCTAssertTrue(
            parser.usage.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix("                     ") })
    }
}
