/// A file name from the far side made safe to save: always one path component, never hidden,
/// never an option, never a control character, at most `maximumLength` bytes of UTF-8.
///
/// The rules (docs/cli.md, *Saved files*), applied in this order:
/// 1. the bytes are read as UTF-8; every byte that is not valid UTF-8 becomes `_`;
/// 2. `/`, `\`, NUL and every control character (U+0000-U+001F, U+007F-U+009F), the line and
///    paragraph separators and the bidirectional controls (U+200E, U+200F, U+202A-U+202E,
///    U+2066-U+2069, which can make `gpj.exe` look like `exe.jpg`) become `_`;
/// 3. a name that begins with `message-` (in any case) gets `_` in front: those are the names of
///    messages without one (`numbered`), which no sender may take ahead of them;
/// 4. a name longer than `maximumLength` bytes is cut on a character boundary, keeping its
///    extension when that is short;
/// 5. a leading `.` or `-` of what is left becomes `_` (no hidden file, no `..`, nothing a shell
///    takes for an option): after the cut, which can drop a whole first character (`a` with 120
///    combining accents is one character of 241 bytes) and leave the extension first;
/// 6. an empty name becomes `file`.
public struct ReceivedFileName: Equatable, Sendable, CustomStringConvertible {
    /// The longest safe name in bytes: room left for ` (99999)` and `.part` within Linux's 255.
    public static let maximumLength = 240
    /// The longest extension kept whole when a name is cut (bytes, the dot included).
    static let maximumKeptExtension = 16

    /// The safe name.
    public let value: String

    /// What the names of messages without one begin with (`numbered`).
    static let numberedPrefix = "message-"

    /// The safe form of `bytes`, a name as the sender wrote it.
    public init(_ bytes: [UInt8]) { self.init(bytes, fromSender: true) }

    /// The name of the `number`-th message received (without a name of its own) from the sender
    /// whose address, made a path component, is `sender`: `message-0001-00_AA_01_01_00_01.txt`.
    public static func numbered(_ number: Int, sender: String, suffix: String) -> ReceivedFileName {
        let digits = String(number)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return ReceivedFileName(Array("\(numberedPrefix)\(padded)-\(sender).\(suffix)".utf8), fromSender: false)
    }

    private init(_ bytes: [UInt8], fromSender: Bool) {
        var scalars = String.UnicodeScalarView()
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(Self.isUnsafe(scalar) ? "_" : scalar)
            case .error: scalars.append("_")
            case .emptyInput: break decoding
            }
        }
        var name = String(scalars)
        if fromSender, name.lowercased().hasPrefix(Self.numberedPrefix) { name = "_" + name }
        if name.utf8.count > Self.maximumLength { name = Self.cut(name) }
        var safe = name.unicodeScalars
        if let first = safe.first, first == "." || first == "-" {
            safe.replaceSubrange(safe.startIndex...safe.startIndex, with: ["_"])
        }
        value = safe.isEmpty ? "file" : String(safe)
    }

    /// Whether `scalar` may not appear in a saved name.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2F, 0x5C: true  // "/" and "\"
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional controls
        default: false
        }
    }

    /// `name` cut to `maximumLength` bytes on a character boundary, its short extension kept.
    private static func cut(_ name: String) -> String {
        let (stem, suffix) = split(name)
        let keep = suffix.utf8.count <= maximumKeptExtension ? suffix : ""
        var budget = maximumLength - keep.utf8.count
        var kept = ""
        for character in keep.isEmpty ? name : stem {
            let length = character.utf8.count
            guard length <= budget else { break }
            kept.append(character)
            budget -= length
        }
        return kept + keep
    }

    /// `name` as stem and extension (`photo.tar.gz`: `photo.tar`, `.gz`; `README`: `README`, ``).
    static func split(_ name: String) -> (stem: String, suffix: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }

    /// The `attempt`-th name to try when the safe name is taken: the name itself for 0, else
    /// `stem (attempt).ext` (`photo (1).jpg`, `photo (2).jpg`, ...).
    public func candidate(_ attempt: Int) -> String {
        guard attempt > 0 else { return value }
        let (stem, suffix) = Self.split(value)
        return "\(stem) (\(attempt))\(suffix)"
    }

    /// The safe name.
    public var description: String { value }
}
