/// Which characteristic a traced value went over (`--trace`), by its short name.
public enum TracedCharacteristic: String, Sendable, Hashable {
    /// The write characteristic (counters and version-1 frames from a central).
    case write
    /// The notify characteristic (counters and version-1 frames from the peripheral).
    case notify
    /// The session characteristic (protocol 2: session frames and counters).
    case session
    /// The Nordic UART Service's RX (text a phone UART app writes).
    case uartRX = "nus-rx"
    /// The Nordic UART Service's TX (text notified to phone UART apps).
    case uartTX = "nus-tx"
    /// The L2CAP lane (protocol 2's values on a channel, each without its length in front).
    case lane
}

/// What a characteristic value means, in one line, for `--trace`: `counter 42`, a version-1
/// frame's header fields, a version-2 session frame's fields. Pure: the bytes go in, text comes out.
public enum ValueMeaning {
    /// The meaning of `value` on `characteristic`.
    public static func describe(_ value: [UInt8], on characteristic: TracedCharacteristic) -> String {
        switch characteristic {
        case .write, .notify:
            if value.count == Counter.encodedLength, let counter = try? Counter(parsing: value) {
                return "counter \(counter)"
            }
            do {
                return frame(try FrameHeader(parsing: value), payload: value.count)
            } catch {
                return "not a relay value: \(error)"
            }
        case .uartRX, .uartTX:
            var text = ""
            for scalar in String(decoding: value, as: UTF8.self).unicodeScalars {
                switch scalar {
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                default: text.unicodeScalars.append(scalar)
                }
            }
            return "text \"\(text)\""
        case .session, .lane:
            do {
                switch try SessionValue(parsing: value) {
                case .counter(let counter): return "counter \(counter)"
                case .compact(let frame):
                    return
                        "compact data offset \(frame.residue) modulo \(CompactDataFrame.modulus), \(frame.bytes.count) stream bytes"
                case .frame(let frame): return session(frame)
                }
            } catch {
                return "not a relay value: \(error)"
            }
        }
    }

    private static func frame(_ header: FrameHeader, payload total: Int) -> String {
        var flags: [String] = []
        if header.isFirst { flags.append("FIRST") }
        if header.isLast { flags.append("LAST") }
        var line = "frame v1 \(flags.isEmpty ? "-" : flags.joined(separator: "|")) id \(header.messageID.value)"
        line += " seq \(header.sequence)"
        if let start = header.start {
            line += ", \(start.kind), length \(start.totalLength), CRC-32C \(hex32(start.checksum))"
        }
        return line + ", \(total - header.encodedLength) payload bytes"
    }

    private static func session(_ frame: SessionFrame) -> String {
        switch frame {
        case .hello(let hello):
            return "hello v\(hello.version) token \(hex32(hello.token.value)) address \(hello.address)"
                + " window \(hello.window) next \(hello.next.value)"
        case .welcome(let welcome):
            return
                "welcome v\(welcome.version) session \(welcome.session.value) central \(hex32(welcome.central.value))"
                + " peripheral \(hex32(welcome.peripheral.value)) window \(welcome.window) next \(welcome.next.value)"
                + (welcome.mtu.map { " mtu \($0.value)" } ?? "")
        case .data(let data):
            var line = "data session \(data.session.value) transfer \(data.transfer.value) offset \(data.offset)"
            line += ", \(data.bytes.count) stream bytes"
            if data.offset == 0, let header = try? MessageHeader(parsing: data.bytes) {
                line += "; header \(header.kind), length \(header.length), CRC-32C \(hex32(header.checksum))"
                line += header.name.isEmpty ? ", no name" : ", name \(header.name.count) bytes"
            }
            return line
        case .acknowledgement(let ack):
            var line = "acknowledgement \(ack.status) session \(ack.session.value) transfer \(ack.transfer.value)"
            line += " received \(ack.received)"
            if !ack.spans.isEmpty { line += " spans " + ack.spans.map(\.description).joined(separator: " ") }
            return line
        case .abort(let abort):
            return "abort session \(abort.session.value) transfer \(abort.transfer.value): \(abort.reason)"
        }
    }

    private static func hex32(_ value: UInt32) -> String { Hex.fixed(UInt64(value), width: 8) }
}
