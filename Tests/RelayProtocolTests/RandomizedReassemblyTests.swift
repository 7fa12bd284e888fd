import RelayProtocol
import RelayTestSupport
import XCTest

/// Seeded fuzzing of the reassembler: random values and mutated frame streams.
final class RandomizedReassemblyTests: XCTestCase {
    private enum Mutation: CaseIterable {
        case none, bitFlip, truncation, duplicate, reorder, drop, lyingLength, garbage
    }

    func testRandomAndMutatedFramesNeverDeliverAWrongMessage() {
        let limit = 4096
        let valueTarget = 100_000
        var generator = SeededGenerator(seed: 0x00C0_FFEE)
        var reassembler = Reassembler(maxMessageLength: limit)
        var sent: Set<Message> = []
        var fed = 0
        var delivered = 0
        var cleanMessages = 0
        var errors = 0
        var mutationCounts: [String: Int] = [:]

        while fed < valueTarget {
            let mtu = MTU(
                clamping: [23, 185, 247, 517, Int.random(in: 23...517, using: &generator)].randomElement(
                    using: &generator)!)
            let size = randomSize(limit: limit, using: &generator)
            let message = Message(kind: Bool.random(using: &generator) ? .text : .binary, bytes: generator.bytes(size))
            let id = MessageID(UInt8.random(in: 0...255, using: &generator))
            sent.insert(message)
            var values = frameValues(of: message, id: id, mtu: mtu)
            let mutation = Mutation.allCases.randomElement(using: &generator)!
            let applied = mutate(&values, mutation, using: &generator)
            mutationCounts["\(applied)", default: 0] += 1

            var events: [ReassemblyEvent] = []
            for value in values {
                events += reassembler.receive(value)
                fed += 1
            }
            for received in events.messages {
                delivered += 1
                XCTAssertTrue(sent.contains(received.message), "delivered a message that was never sent")
            }
            errors += events.errors.count
            if applied == .none {
                cleanMessages += 1
                if size <= limit {
                    XCTAssertEqual(
                        events.messages, [ReceivedMessage(id: id, message: message)], "a clean message must arrive")
                } else {
                    XCTAssertEqual(events.messages, [])
                    XCTAssertTrue(events.errors.contains(.messageTooLarge(id, declared: UInt32(size), limit: limit)))
                }
            }
        }
        XCTAssertGreaterThanOrEqual(fed, valueTarget)
        XCTAssertGreaterThan(cleanMessages, 1000)
        XCTAssertGreaterThan(errors, 1000)
        XCTAssertGreaterThan(delivered, cleanMessages / 2)
        for mutation in Mutation.allCases {
            XCTAssertGreaterThan(mutationCounts["\(mutation)"] ?? 0, 100, "\(mutation)")
        }
    }

    func testPureRandomValuesNeverCrashOrDeliver() {
        var generator = SeededGenerator(seed: 0xBAD5_EED)
        var reassembler = Reassembler()
        var delivered = 0
        for _ in 0..<20_000 {
            var value = generator.bytes(Int.random(in: 0...40, using: &generator))
            if value.count > 1, Bool.random(using: &generator) {
                value[0] = 0xB1
                value[1] &= 0x03
            }
            for event in reassembler.receive(value) {
                if case .message(let received) = event {
                    // Only the trivially valid empty message can come out of random bytes in practice.
                    XCTAssertEqual(received.message.bytes, [], "random bytes delivered a message")
                    delivered += 1
                }
            }
        }
        XCTAssertLessThan(delivered, 10)
    }

    /// Mostly small messages, some multi-chunk ones, a few above the limit.
    private func randomSize(limit: Int, using generator: inout SeededGenerator) -> Int {
        switch Int.random(in: 0..<20, using: &generator) {
        case 0: Int.random(in: limit - 50...limit + 50, using: &generator)
        case 1..<6: Int.random(in: 200..<2000, using: &generator)
        default: Int.random(in: 0..<200, using: &generator)
        }
    }

    /// Applies `mutation` to the frame stream; returns `.none` when it could not apply.
    private func mutate(
        _ values: inout [[UInt8]], _ mutation: Mutation, using generator: inout SeededGenerator
    ) -> Mutation {
        let index = Int.random(in: 0..<values.count, using: &generator)
        switch mutation {
        case .none:
            return .none
        case .bitFlip:
            let byte = Int.random(in: 0..<values[index].count, using: &generator)
            values[index][byte] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
        case .truncation:
            values[index] = Array(values[index].prefix(Int.random(in: 0..<values[index].count, using: &generator)))
        case .duplicate:
            values.insert(values[index], at: index + 1)
        case .reorder:
            guard values.count > 1 else { return .none }
            let other = Int.random(in: 0..<values.count, using: &generator)
            guard other != index else { return .none }
            values.swapAt(index, other)
        case .drop:
            values.remove(at: index)
        case .lyingLength:
            guard values[0].count >= FrameHeader.firstLength else { return .none }
            let lie: UInt32 =
                Bool.random(using: &generator)
                ? UInt32.random(in: 0...UInt32.max, using: &generator)
                : UInt32(truncatingIfNeeded: Int.random(in: 0...8192, using: &generator))
            let declared =
                UInt32(values[0][6]) | UInt32(values[0][7]) << 8 | UInt32(values[0][8]) << 16
                | UInt32(values[0][9]) << 24
            guard lie != declared else { return .none }
            for offset in 0..<4 { values[0][6 + offset] = UInt8(truncatingIfNeeded: lie >> (8 * UInt32(offset))) }
        case .garbage:
            var junk = generator.bytes(Int.random(in: 0...30, using: &generator))
            if junk.count > 4, Bool.random(using: &generator) {
                junk[0] = 0xB1
                junk[1] &= 0x03
                junk[2] = values[0].count > 2 ? values[0][2] : 0
            }
            values.insert(junk, at: Int.random(in: 0...values.count, using: &generator))
        }
        return mutation
    }
}
