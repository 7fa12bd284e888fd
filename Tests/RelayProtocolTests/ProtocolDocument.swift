import Foundation
import RelayProtocol

/// The `relay-vector` blocks of docs/protocol.md, so the tests check exactly what the document says.
struct GoldenVector {
    /// `key: value` lines.
    var fields: [String: String] = [:]
    /// Hex fields (`value:`, `frame N:`), keyed by their name.
    var hexFields: [String: [UInt8]] = [:]

    var name: String { fields["vector"] ?? "?" }

    func integer(_ key: String) -> Int? {
        guard let text = fields[key] else { return nil }
        if text.hasPrefix("0x") { return Int(text.dropFirst(2), radix: 16) }
        return Int(text)
    }

    /// The frame vectors, by frame index.
    var frames: [Int: [UInt8]] {
        var frames: [Int: [UInt8]] = [:]
        for (key, value) in hexFields where key.hasPrefix("frame ") {
            if let index = Int(key.dropFirst("frame ".count)) { frames[index] = value }
        }
        return frames
    }

    /// The message the vector describes: `text:`, or `content: byte i = i % N` with `length:`.
    var message: Message? {
        guard let kindName = fields["kind"] else { return nil }
        if let text = fields["text"] {
            return Message(kind: kindName == "text" ? .text : .binary, bytes: Array(text.utf8))
        }
        guard let content = fields["content"], let length = integer("length"),
            let modulus = content.split(separator: "%").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else { return nil }
        let bytes = (0..<length).map { UInt8($0 % modulus) }
        return Message(kind: kindName == "text" ? .text : .binary, bytes: bytes)
    }
}

enum ProtocolDocument {
    static var url: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/protocol.md")
    }

    static func vectors() throws -> [GoldenVector] {
        try parse(String(contentsOf: url, encoding: .utf8))
    }

    static func parse(_ document: String) -> [GoldenVector] {
        var vectors: [GoldenVector] = []
        var current: GoldenVector?
        var hexKey: String?
        for rawLine in document.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if current == nil {
                if line.trimmingCharacters(in: .whitespaces) == "```relay-vector" { current = GoldenVector() }
                continue
            }
            if line.trimmingCharacters(in: .whitespaces) == "```" {
                vectors.append(current!)
                current = nil
                hexKey = nil
                continue
            }
            if line.hasPrefix(" "), let key = hexKey {
                current!.hexFields[key, default: []] += bytes(hex: line.trimmingCharacters(in: .whitespaces))
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if key == "value" || key == "channel" || key.hasPrefix("frame ") {
                hexKey = key
                current!.hexFields[key] = []
            } else {
                hexKey = nil
                current!.fields[key] = value
            }
        }
        return vectors
    }
}
