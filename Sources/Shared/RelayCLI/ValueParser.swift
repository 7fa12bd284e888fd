/// Strict parsers for typed command and option values, with one-line messages that
/// say what was expected and what was given.
///
/// `what` names the value in messages (`N`, `SECONDS`); `command` (a command name or
/// an option like `--scan-timeout`) prefixes them: `notify: N must be ...`.
public enum ValueParser {
    /// Upper bound for durations (one day).
    public static let maximumSeconds: Double = 86_400

    /// A decimal whole number in `range`; rejects signs, spaces, hex, and overflow.
    public static func unsigned(
        _ text: String, _ what: String, command: String? = nil,
        range: ClosedRange<UInt64> = 0...UInt64.max
    ) throws(CommandError) -> UInt64 {
        let prefix = command.map { $0 + ": " } ?? ""
        let shown = quoted(text)
        let expected = "a whole number from \(range.lowerBound) to \(range.upperBound)"
        if text.hasPrefix("-"), text.count > 1, text.dropFirst().allSatisfy(\.isASCIIDigit) {
            throw CommandError("\(prefix)\(what) must not be negative (expected \(expected), got \(shown))")
        }
        guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else {
            throw CommandError("\(prefix)\(what) must be \(expected), not \(shown)")
        }
        guard let value = UInt64(text), range.contains(value) else {
            throw CommandError("\(prefix)\(what) is out of range (expected \(expected), got \(shown))")
        }
        return value
    }

    /// A UInt32 (counter values), 0 to 4294967295.
    public static func uint32(_ text: String, _ what: String, command: String? = nil) throws(CommandError) -> UInt32 {
        UInt32(try unsigned(text, what, command: command, range: 0...UInt64(UInt32.max)))
    }

    /// An `Int` in `range` (indexes, byte counts).
    public static func integer(
        _ text: String, _ what: String, command: String? = nil,
        range: ClosedRange<Int>
    ) throws(CommandError) -> Int {
        let lower = UInt64(max(0, range.lowerBound))
        let upper = UInt64(max(0, range.upperBound))
        return Int(try unsigned(text, what, command: command, range: lower...upper))
    }

    /// A byte count in `range`: decimal digits, optionally followed by `K`/`KiB` (1024) or
    /// `M`/`MiB` (1048576), e.g. `65536`, `64K`, `1M`.
    public static func byteCount(
        _ text: String, _ what: String, command: String? = nil,
        range: ClosedRange<Int>
    ) throws(CommandError) -> Int {
        let prefix = command.map { $0 + ": " } ?? ""
        var digits = Substring(text)
        var multiplier = 1
        for (suffixes, factor) in [(["KiB", "K", "k"], 1 << 10), (["MiB", "M", "m"], 1 << 20)] {
            if let suffix = suffixes.first(where: { digits.hasSuffix($0) }) {
                digits = digits.dropLast(suffix.count)
                multiplier = factor
                break
            }
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let number = Int(digits),
            !number.multipliedReportingOverflow(by: multiplier).overflow
        else { throw CommandError("\(prefix)\(quoted(text)) is not a byte count (e.g. 1048576, 64K or 1M)") }
        let bytes = number * multiplier
        guard range.contains(bytes) else {
            throw CommandError("\(prefix)\(bytes) is out of range (\(range.lowerBound) to \(range.upperBound) bytes)")
        }
        return bytes
    }

    /// A duration in seconds written as plain decimal (`2`, `0.5`, `.25`): greater than 0
    /// (or equal with `allowZero`) and at most `maximum`. No exponents, signs, inf or nan.
    public static func seconds(
        _ text: String, _ what: String, command: String? = nil,
        maximum: Double = maximumSeconds, allowZero: Bool = false
    ) throws(CommandError) -> Double {
        let prefix = command.map { $0 + ": " } ?? ""
        let limit = maximum == maximum.rounded() ? String(Int64(maximum)) : String(maximum)
        let expected = "a number of seconds \(allowZero ? "from 0" : "greater than 0") up to \(limit)"
        let digits = text.filter(\.isASCIIDigit).count
        let dots = text.filter { $0 == "." }.count
        let wellFormed = !text.isEmpty && digits > 0 && dots <= 1 && digits + dots == text.count
        if text.hasPrefix("-"), let value = Double(text), value.isFinite {
            throw CommandError("\(prefix)\(what) must not be negative (expected \(expected), got \(quoted(text)))")
        }
        guard wellFormed, let value = Double(text) else {
            throw CommandError("\(prefix)\(what) must be \(expected), not \(quoted(text))")
        }
        guard value <= maximum, allowZero || value > 0 else {
            throw CommandError("\(prefix)\(what) is out of range (expected \(expected), got \(quoted(text)))")
        }
        return value
    }

    /// `text` in single quotes for messages, shortened when long, controls escaped.
    public static func quoted(_ text: String) -> String {
        let limit = 40
        let short = text.count > limit ? String(text.prefix(limit)) + "..." : text
        return "'" + Console.sanitize(short) + "'"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return ascii >= 0x30 && ascii <= 0x39
    }
}
