/// A random number each relay process picks once, so that a peer can tell the same process
/// coming back (resume) from a new one (start over). Never 0 on the wire.
public struct SessionToken: Sendable, Hashable, CustomStringConvertible {
    /// The token value, never 0.
    public let value: UInt32

    /// The token `value`; nil for 0, which is not a token.
    public init?(_ value: UInt32) {
        guard value != 0 else { return nil }
        self.value = value
    }

    /// A fresh token from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> SessionToken {
        SessionToken(UInt32.random(in: 1...UInt32.max, using: &generator))!
    }

    /// Eight hex digits.
    public var description: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// The number a peripheral gives each central's session (byte 3 of every session frame): which
/// central wrote a frame (the write socket of BlueZ 5.66 does not say), and which central an
/// acknowledgement or welcome is for (notifications reach every subscriber).
public struct SessionNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Data the peripheral sends to every central of the message (its notifications reach all).
    public static let everyone = SessionNumber(uncheckedValue: 0xFF)
    /// The numbers a peripheral assigns: 1 through 254.
    public static let assignable: ClosedRange<UInt8> = 1...254

    /// The number; 0 is never used, 255 is `everyone`.
    public let value: UInt8

    private init(uncheckedValue: UInt8) {
        value = uncheckedValue
    }

    /// The number `value`; nil for 0.
    public init?(_ value: UInt8) {
        guard value != 0 else { return nil }
        self.value = value
    }

    public static func < (lhs: SessionNumber, rhs: SessionNumber) -> Bool { lhs.value < rhs.value }

    /// `s7`, or `all`.
    public var description: String { self == .everyone ? "all" : "s\(value)" }
}

/// The number a version-2 sender gives each message it sends to a peer, +1 per message, wrapping
/// from 65535 to 0. Compared as serial numbers: within 32768 of each other, the one ahead is newer.
public struct TransferID: Sendable, Hashable, CustomStringConvertible {
    /// The number.
    public var value: UInt16

    /// The number `value`.
    public init(_ value: UInt16) {
        self.value = value
    }

    /// The number of the following message.
    public var next: TransferID { TransferID(value &+ 1) }

    /// How far `other` is ahead of this one (negative: behind), as serial numbers.
    public func distance(to other: TransferID) -> Int { Int(Int16(bitPattern: other.value &- value)) }

    /// `#` and the number, for example `#7`.
    public var description: String { "#\(value)" }
}

/// A half-open range of message stream bytes, `start..<end`, as acknowledgements carry them.
public struct ByteSpan: Sendable, Hashable, CustomStringConvertible {
    /// The first byte.
    public var start: UInt32
    /// One past the last byte.
    public var end: UInt32

    /// The bytes `start..<end`; nil unless `start < end`.
    public init?(start: UInt32, end: UInt32) {
        guard start < end else { return nil }
        self.start = start
        self.end = end
    }

    /// How many bytes.
    public var count: Int { Int(end - start) }

    /// `start..<end`.
    public var description: String { "\(start)..<\(end)" }
}
