import RelayProtocol
import XCTest

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
