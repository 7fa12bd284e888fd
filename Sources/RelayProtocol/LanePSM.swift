/// The LE protocol/service multiplexer an L2CAP lane listens on: a dynamic one, 0x0080-0x00FF
/// (the range the kernel gives without privileges and the one iPhones open).
///
/// relay-peripheral publishes it in the lane characteristic (`RelayProfile.laneCharacteristic`,
/// the UUID Core Bluetooth apps look for) as a little-endian UInt16.
public struct LanePSM: Sendable, Hashable, CustomStringConvertible {
    /// The dynamic LE PSMs.
    public static let dynamicRange: ClosedRange<UInt16> = 0x0080...0x00FF

    public let value: UInt16

    /// The PSM `value`, or nil outside the dynamic range.
    public init?(_ value: UInt16) {
        guard Self.dynamicRange.contains(value) else { return nil }
        self.value = value
    }

    /// The characteristic's value: 2 bytes, little-endian.
    public var encoded: [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    /// Reads the characteristic's value: exactly 2 bytes naming a dynamic PSM.
    public init(parsing bytes: [UInt8]) throws(LanePSMError) {
        guard bytes.count == 2 else { throw .wrongLength(bytes.count) }
        let value = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        guard let psm = LanePSM(value) else { throw .notDynamic(value) }
        self = psm
    }

    /// `0x0081` form.
    public var description: String { Hex.fixed(UInt64(value), width: 4) }
}

/// Why a lane characteristic's value names no PSM.
public enum LanePSMError: Error, Sendable, Equatable, CustomStringConvertible {
    case wrongLength(Int)
    case notDynamic(UInt16)

    public var description: String {
        switch self {
        case .wrongLength(let count): "the lane characteristic holds \(count) bytes, not 2"
        case .notDynamic(let value): "the lane characteristic names PSM \(value), not one of 0x0080-0x00FF"
        }
    }
}
