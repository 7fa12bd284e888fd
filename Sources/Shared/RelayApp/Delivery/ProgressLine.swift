/// The live line of a transfer in progress, as a terminal shows it above the prompt:
/// `sending photo.jpg: 1.2 of 5.0 MiB (24 %), 45.6 KiB/s, 1 min 30 s left`.
public struct ProgressLine: Equatable, Sendable {
    public let id: Int
    public let direction: TransferDirection
    /// The file name (nil for a text or binary message: `message N`).
    public let name: String?
    public let bytes: Int
    public let total: Int
    /// Bytes a second.
    public let rate: Double

    public init(id: Int, direction: TransferDirection, name: String?, bytes: Int, total: Int, rate: Double) {
        self.id = id
        self.direction = direction
        self.name = name
        self.bytes = bytes
        self.total = total
        self.rate = rate
    }

    /// The line.
    public var text: String {
        let what = name.map(Self.shown) ?? "message \(id)"
        let percent = total > 0 ? Int((Double(bytes) * 100 / Double(total)).rounded(.down)) : 100
        let verb = direction == .incoming ? "receiving" : "sending"
        return "\(verb) \(what): \(Self.size(bytes, of: total)) (\(percent) %), \(Self.rate(rate)), \(timeLeft)"
    }

    /// `3 min 5 s left`, from the rate; `time left not known yet` before there is one.
    public var timeLeft: String {
        guard rate > 0 else { return bytes >= total ? "done" : "time left not known yet" }
        let seconds = Int((Double(max(0, total - bytes)) / rate).rounded(.up))
        return Self.duration(seconds) + " left"
    }

    /// A name from the far side, safe on one terminal row: control and format characters (line
    /// breaks, tabs, escapes, bidirectional controls) as `\xNN` or `\u{NNNN}`.
    static func shown(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || (0x7F..<0xA0).contains(value) {
                let digits = String(value, radix: 16, uppercase: true)
                out += "\\x" + (digits.count < 2 ? "0" : "") + digits
            } else if scalar.properties.generalCategory == .format
                || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator
            {
                out += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `512 of 900 bytes`, `12.5 of 300.0 KiB`, `1.2 of 5.0 MiB` (the unit of the total).
    static func size(_ bytes: Int, of total: Int) -> String {
        if total < 1024 { return "\(bytes) of \(total) bytes" }
        let unit = total < 1 << 20 ? 1024.0 : 1_048_576.0
        let name = total < 1 << 20 ? "KiB" : "MiB"
        return "\(oneDecimal(Double(bytes) / unit)) of \(oneDecimal(Double(total) / unit)) \(name)"
    }

    /// `850 bytes/s`, `45.6 KiB/s`.
    static func rate(_ rate: Double) -> String {
        rate < 1024 ? "\(Int(rate.rounded())) bytes/s" : "\(oneDecimal(rate / 1024)) KiB/s"
    }

    static func duration(_ seconds: Int) -> String {
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min \(seconds % 60) s" }
        return "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded(.down))
        return "\(tenths / 10).\(tenths % 10)"
    }
}
