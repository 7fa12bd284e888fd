#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One command-line option, `--name` or `--name VALUE` / `--name=VALUE`.
public struct OptionSpec: Sendable {
    /// What the value must be; checked while parsing, so errors are usage errors.
    public enum Kind: Sendable, Equatable {
        /// No value (`--json`).
        case flag
        /// Any non-empty text.
        case text
        /// A whole number in the range (`--max-message BYTES`).
        case integer(ClosedRange<Int>)
        /// Seconds greater than 0, at most the bound (`--scan-timeout S`).
        case seconds(maximum: Double)
        /// A byte count in the range, written `65536`, `64K`/`64KiB` or `1M`/`1MiB` (binary
        /// multiples; `--max-message BYTES`).
        case byteCount(ClosedRange<Int>)
        /// One of these words (`--notify-path socket|signal`).
        case choice([String])
    }

    /// The name without dashes (`adapter`).
    public let name: String
    /// The value's placeholder in usage (`hciN|ADDRESS`); ignored for flags.
    public let valueName: String
    /// What the value must be.
    public let kind: Kind
    /// One line for `--help`.
    public let help: String

    /// A flag (`--json`).
    public static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: "", kind: .flag, help: help)
    }

    /// An option with a value.
    public static func value(_ name: String, _ valueName: String, kind: Kind = .text, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, kind: kind, help: help)
    }

    var usage: String { kind == .flag ? "--\(name)" : "--\(name) \(valueName)" }
}

/// A command-line usage error; the program prints it with the usage and exits 64.
public struct UsageError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What is wrong, without the program name.
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The parsed options; values were validated by their ``OptionSpec/Kind``.
public struct ParsedOptions: Sendable {
    var values: [String: String] = [:]

    /// Whether the flag was given.
    public func flag(_ name: String) -> Bool { values[name] != nil }
    /// The option's value as given (last one wins), or nil.
    public func text(_ name: String) -> String? { values[name] }
    /// An `.integer` option's value, or nil.
    public func integer(_ name: String) -> Int? { values[name].flatMap { Int($0) } }
    /// A `.seconds` option's value, or nil.
    public func seconds(_ name: String) -> Double? { values[name].flatMap { Double($0) } }
    /// A `.byteCount` option's value in bytes, or nil.
    public func byteCount(_ name: String) -> Int? { integer(name) }
    /// A `.choice` option's value as a raw-representable type, or nil.
    public func choice<Value: RawRepresentable>(_ name: String, as type: Value.Type) -> Value?
    where Value.RawValue == String {
        values[name].flatMap(Value.init(rawValue:))
    }
}

/// A small `--long-option` parser with `--help` and `--version` built in.
///
/// Errors read `relay-peripheral: unknown option '--frob'`; ``exitWithUsageError(_:)`` prints
/// them to stderr followed by the usage and exits 64 (EX_USAGE).
public struct OptionParser: Sendable {
    /// The program name used in messages.
    public let program: String
    /// The sentence under the usage line in `--help`.
    public let summary: String
    /// The text `--version` prints (e.g. `relay-peripheral 0.1.0`).
    public let version: String
    /// The options (without `--help`/`--version`).
    public let options: [OptionSpec]

    /// What a successful parse asks for.
    public enum Outcome: Sendable {
        case run(ParsedOptions)
        case help(String)
        case version(String)
    }

    public init(program: String, summary: String, version: String, options: [OptionSpec]) {
        self.program = program
        self.summary = summary
        self.version = version
        self.options = options
    }

    /// `usage: relay-peripheral [--adapter hciN|ADDRESS] [--json] [--help] [--version]`
    public var usage: String {
        let parts = options.map { "[\($0.usage)]" } + ["[--help]", "[--version]"]
        return Self.wrap(parts, first: "usage: \(program) ", width: Self.width)
    }

    /// The column text is wrapped at (terminals, man pages).
    public static let width = 100

    /// The `--help` text: usage, summary, one entry per option (its help wrapped in a column).
    public var helpText: String {
        let all =
            options + [
                .flag("help", help: "Show this help and exit."), .flag("version", help: "Show the version and exit."),
            ]
        let column = min(30, all.map(\.usage.count).max() ?? 0) + 4
        var lines = [usage, "", summary, "", "Options:"]
        for option in all {
            let head = "  " + option.usage
            let words = option.help.split(separator: " ").map(String.init)
            let indent = String(repeating: " ", count: column)
            let fits = head.count + 2 <= column
            if !fits { lines.append(head) }  // a long option gets a line of its own
            let first = fits ? head + String(repeating: " ", count: column - head.count) : indent
            lines.append(Self.wrap(words, first: first, next: indent, width: Self.width))
        }
        return lines.joined(separator: "\n")
    }

    /// `words` after `first`, broken into lines of at most `width` columns (a word longer than a
    /// line gets its own); continuation lines start with `next` (default: spaces as wide as `first`).
    static func wrap(_ words: [String], first: String, next: String? = nil, width: Int) -> String {
        let indent = next ?? String(repeating: " ", count: first.count)
        var lines: [String] = []
        var line = first
        var lineHasWord = false
        for word in words {
            if lineHasWord, line.count + 1 + word.count > width {
                lines.append(line)
                line = indent + word
            } else {
                line += (lineHasWord ? " " : "") + word
            }
            lineHasWord = true
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// Parses `arguments` (without the program name).
    public func parse(_ arguments: [String]) throws(UsageError) -> Outcome {
        var parsed = ParsedOptions()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { return .help(helpText) }
            if argument == "--version" { return .version(version) }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                if argument.hasPrefix("-") && argument != "-" {
                    throw UsageError("unknown option \(ValueParser.quoted(argument))")
                }
                throw UsageError("unexpected argument \(ValueParser.quoted(argument))")
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline: String? = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard let spec = options.first(where: { $0.name == name }) else {
                let known = options.map(\.name) + ["help", "version"]
                let hint = NameSuggestion.closest(to: name, among: known).map { "; did you mean '--\($0)'?" } ?? ""
                throw UsageError("unknown option \(ValueParser.quoted("--" + name))\(hint)")
            }
            if spec.kind == .flag {
                if inline != nil { throw UsageError("option '--\(name)' takes no value") }
                parsed.values[name] = ""
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("option '--\(name)' needs a value (\(spec.valueName))")
            }
            parsed.values[name] = try validate(value, for: spec)
        }
        return .run(parsed)
    }

    private func validate(_ value: String, for spec: OptionSpec) throws(UsageError) -> String {
        do throws(CommandError) {
            switch spec.kind {
            case .flag: return ""
            case .text:
                if value.isEmpty { throw CommandError("--\(spec.name): \(spec.valueName) must not be empty") }
                return value
            case .integer(let range):
                return String(
                    try ValueParser.integer(value, spec.valueName, command: "--" + spec.name, range: range))
            case .seconds(let maximum):
                return String(
                    try ValueParser.seconds(value, spec.valueName, command: "--" + spec.name, maximum: maximum))
            case .byteCount(let range):
                return String(
                    try ValueParser.byteCount(value, spec.valueName, command: "--" + spec.name, range: range))
            case .choice(let words):
                guard words.contains(value) else {
                    let list =
                        words.count == 2
                        ? "neither \(words[0]) nor \(words[1])"
                        : "not one of " + words.joined(separator: ", ")
                    throw CommandError("--\(spec.name): \(ValueParser.quoted(value)) is \(list)")
                }
                return value
            }
        } catch {
            throw UsageError(error.message)
        }
    }

    /// The text printed for a usage error: the message, the usage and a hint.
    public func usageErrorText(_ error: UsageError) -> String {
        "\(program): \(error.message)\n\(usage)\nTry '\(program) --help' for more information.\n"
    }

    /// Prints a usage error found by the program itself (e.g. a name too long to advertise)
    /// and exits 64.
    public func exitWithUsageError(_ error: UsageError) -> Never {
        Console.writeAll(fd: 2, usageErrorText(error))
        exit(64)
    }
}

/// What a program's command line asks for.
public enum Launch<Options: Sendable>: Sendable {
    /// Run with these options.
    case run(Options)
    /// Print this text (`--help`, `--version`) and exit 0.
    case print(String)
}

extension Launch: Equatable where Options: Equatable {}

extension OptionParser {
    /// Parses `arguments` and builds the program's options from them with `make` (which adds
    /// the checks the parser cannot make).
    public func launch<Options>(
        _ arguments: [String], _ make: (ParsedOptions) throws(UsageError) -> Options
    ) throws(UsageError) -> Launch<Options> {
        switch try parse(arguments) {
        case .help(let text), .version(let text): return .print(text)
        case .run(let parsed): return .run(try make(parsed))
        }
    }
}
