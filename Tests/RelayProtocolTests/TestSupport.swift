import RelayProtocol
import XCTest

/// A small, fast, seeded generator (SplitMix64) so randomized tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = next()
            for _ in 0..<Swift.min(8, count - index) {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return bytes
    }
}

/// All frames of `message` as values.
func frameValues(of message: Message, id: MessageID, mtu: MTU) -> [[UInt8]] {
    Array(MessageFrames(message: message, id: id, mtu: mtu, carrier: .write))
}

/// Feeds `values` in order and collects every event.
func feed(_ values: [[UInt8]], to reassembler: inout Reassembler) -> [ReassemblyEvent] {
    values.flatMap { reassembler.receive($0) }
}

extension Array where Element == ReassemblyEvent {
    var messages: [ReceivedMessage] {
        compactMap { if case .message(let message) = $0 { message } else { nil } }
    }

    var errors: [ReassemblyError] {
        compactMap { if case .error(let error, _) = $0 { error } else { nil } }
    }

    var dropped: [DroppedPartial] {
        compactMap { if case .error(_, let dropped?) = $0 { dropped } else { nil } }
    }
}

/// Parses space- or newline-separated hex bytes.
func bytes(hex: String) -> [UInt8] {
    hex.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { token in
        guard let byte = UInt8(token, radix: 16) else { preconditionFailure("bad hex byte \(token)") }
        return byte
    }
}

/// Sends a fresh multi-frame message and asserts that it arrives intact and alone.
func assertGoodMessageArrives(
    _ reassembler: inout Reassembler, id: MessageID = MessageID(200), mtu: MTU = .default,
    file: StaticString = #filePath, line: UInt = #line
) {
    let message = Message(binary: (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
    let events = feed(frameValues(of: message, id: id, mtu: mtu), to: &reassembler)
    XCTAssertEqual(events, [.message(ReceivedMessage(id: id, message: message))], file: file, line: line)
}
