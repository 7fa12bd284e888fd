/// The counting value the original iPhone and Apple Watch apps exchange.
///
/// On the wire a counter is a bare `UInt32`, little-endian, exactly 4 bytes, never framed
/// (the original apps send `withUnsafeBytes { $0.load(as: UInt32.self) }`). No relay frame is
/// ever 4 bytes long, so a 4-byte value is always a counter.
public struct Counter: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The length of every encoded counter, in bytes.
    public static let encodedLength = 4

    /// The counter value.
    public var value: UInt32

    /// A counter holding `value`.
    public init(_ value: UInt32) {
        self.value = value
    }

    /// The following counter value; `UInt32.max` wraps to 0.
    public var next: Counter { Counter(value &+ 1) }

    /// The number of bytes `encode(into:)` appends: always 4.
    public var encodedLength: Int { Self.encodedLength }

    /// Appends the 4 little-endian bytes of the counter to `bytes`.
    public func encode(into bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    /// The 4 little-endian bytes of the counter, ready to be written as a characteristic value.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.encodedLength)
        encode(into: &bytes)
        return bytes
    }

    /// Parses a received value that must be exactly 4 bytes long.
    public init(parsing bytes: some Collection<UInt8>) throws(CounterError) {
        guard bytes.count == Self.encodedLength else { throw .wrongLength(bytes.count) }
        var value: UInt32 = 0
        var shift: UInt32 = 0
        for byte in bytes {
            value |= UInt32(byte) << shift
            shift += 8
        }
        self.value = value
    }

    /// Orders counters by value.
    public static func < (lhs: Counter, rhs: Counter) -> Bool { lhs.value < rhs.value }

    /// The decimal value.
    public var description: String { String(value) }
}

/// Why a value is not a counter.
public enum CounterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A counter is exactly 4 bytes; the value had this many.
    case wrongLength(Int)

    public var description: String {
        switch self {
        case .wrongLength(let length): "a counter is 4 bytes, got \(length)"
        }
    }
}
