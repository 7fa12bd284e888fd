/// Values on the L2CAP lane (docs/protocol.md, "The L2CAP lane"): each value the session
/// characteristic would carry, preceded by its length.
///
/// ```
/// 0-1   length n of the value, UInt16 LE, 1...LaneFraming.largestValue
/// 2...  the value: a session frame, a compact data frame or a counter, as on GATT
/// ```
///
/// The length makes the lane's values independent of how the channel cuts them: a Linux
/// sequenced-packet socket hands whole service data units, an iPhone's stream does not.
public enum LaneFraming {
    /// Bytes before each value.
    public static let headerLength = 2
    /// The longest value relay reads on the lane, and the longest it sends (relay-central cuts
    /// values for its channel's MTU, `MTU(laneChannelMTU:)`; relay-peripheral sends a longer
    /// value in several service data units; data goes in values of 7900 bytes).
    public static let largestValue = 8192

    /// `value` with its length in front.
    public static func encode(_ value: [UInt8]) -> [UInt8] {
        precondition(!value.isEmpty && value.count <= largestValue, "a lane value of \(value.count) bytes")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerLength + value.count)
        bytes.append(UInt8(value.count & 0xFF))
        bytes.append(UInt8(value.count >> 8))
        bytes.append(contentsOf: value)
        return bytes
    }
}

/// What is wrong with the bytes on a lane.
public enum LaneFrameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A length of 0: no value is empty.
    case emptyValue
    /// A length above `LaneFraming.largestValue`.
    case tooLong(Int)

    public var description: String {
        switch self {
        case .emptyValue: "a lane value of length 0"
        case .tooLong(let length): "a lane value of \(length) bytes (at most \(LaneFraming.largestValue))"
        }
    }
}

/// Cuts the bytes that arrive on a lane back into values, however they were split: holds at
/// most one value's worth of bytes. Pure; after an error it holds nothing and the lane is
/// to be closed.
public struct LaneDeframer: Sendable, Equatable {
    private var pending: [UInt8] = []

    public init() {}

    /// Bytes held for a value not complete yet.
    public var pendingCount: Int { pending.count }

    /// The length the value not complete yet declared (nil: no length held yet).
    public var pendingLength: Int? {
        pending.count >= LaneFraming.headerLength ? Int(pending[0]) | Int(pending[1]) << 8 : nil
    }

    /// Takes the next bytes of the lane and returns the values they complete, in order.
    public mutating func take(_ bytes: [UInt8]) throws(LaneFrameError) -> [[UInt8]] {
        pending.append(contentsOf: bytes)
        var values: [[UInt8]] = []
        var start = 0
        while pending.count - start >= LaneFraming.headerLength {
            let length = Int(pending[start]) | Int(pending[start + 1]) << 8
            guard length > 0 else {
                pending = []
                throw .emptyValue
            }
            guard length <= LaneFraming.largestValue else {
                pending = []
                throw .tooLong(length)
            }
            let end = start + LaneFraming.headerLength + length
            guard pending.count >= end else { break }
            values.append(Array(pending[(start + LaneFraming.headerLength)..<end]))
            start = end
        }
        pending.removeFirst(start)
        return values
    }
}
