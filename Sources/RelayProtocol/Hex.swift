/// Lower-case hexadecimal, the one spelling of bytes in relay's output (digests, UUIDs, values
/// in `status`, `read` and `--trace`).
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Two digits per byte, no separators: `[0x2a, 0x00]` is `2a00`.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The first `limit` bytes, then `…(N bytes)` when there are more.
    public static func preview(_ bytes: [UInt8], limit: Int) -> String {
        let shown = string(bytes.prefix(limit))
        return bytes.count > limit ? shown + "…(\(bytes.count) bytes)" : shown
    }

    /// `value` as `0x` and exactly `width` digits (`0x002a` for 42 with width 4).
    public static func fixed(_ value: UInt64, width: Int) -> String {
        let text = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
