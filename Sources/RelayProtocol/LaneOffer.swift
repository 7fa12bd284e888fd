/// The LE protocol/service multiplexer an L2CAP lane listens on: a dynamic one, 0x0080-0x00FF
/// (the range the kernel gives without privileges and the one iPhones open).
///
/// relay-peripheral publishes it in the lane characteristic (`RelayProfile.laneCharacteristic`,
/// the UUID Core Bluetooth apps look for) as a little-endian UInt16, followed by its token
/// (`LaneOffer`).
public struct LanePSM: Sendable, Hashable, CustomStringConvertible {
    /// The dynamic LE PSMs.
    public static let dynamicRange: ClosedRange<UInt16> = 0x0080...0x00FF

    public let value: UInt16

    /// The PSM `value`, or nil outside the dynamic range.
    public init?(_ value: UInt16) {
        guard Self.dynamicRange.contains(value) else { return nil }
        self.value = value
    }

    /// The PSM as 2 bytes, little-endian (the first two of the lane characteristic).
    public var encoded: [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    /// `0x0081` form.
    public var description: String { Hex.fixed(UInt64(value), width: 4) }
}

/// The lane characteristic's value: the PSM relay-peripheral listens on and the token of the
/// relay-peripheral process serving it (docs/protocol.md, "The L2CAP lane").
///
/// ```
/// 0-1   PSM, UInt16 LE, 0x0080-0x00FF
/// 2-5   the peripheral's token, UInt32 LE, never 0 (the `peripheral` of its welcomes)
/// ```
///
/// The token is what the channel's end proves: relay-central takes a welcome on the channel only
/// when it names this token, which the central read over GATT from the peripheral's own GATT
/// server. A local process that took the PSM's incoming channels first (the kernel hands them to
/// the oldest listener that matches) does not know it, and its channel is refused.
public struct LaneOffer: Sendable, Hashable {
    /// Bytes of the characteristic's value.
    public static let encodedLength = 6

    public let psm: LanePSM
    public let peripheral: SessionToken

    public init(psm: LanePSM, peripheral: SessionToken) {
        self.psm = psm
        self.peripheral = peripheral
    }

    /// The characteristic's value.
    public var encoded: [UInt8] {
        var bytes = psm.encoded
        appendLittleEndian(peripheral.value, to: &bytes)
        return bytes
    }

    /// Reads the characteristic's value: exactly 6 bytes, a dynamic PSM and a token.
    public init(parsing bytes: [UInt8]) throws(LaneOfferError) {
        guard bytes.count == Self.encodedLength else { throw .wrongLength(bytes.count) }
        let value = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        guard let psm = LanePSM(value) else { throw .notDynamic(value) }
        let token = bytes.withUnsafeBytes { loadLittleEndianUInt32($0, at: 2) }
        guard let peripheral = SessionToken(token) else { throw .noToken }
        self.init(psm: psm, peripheral: peripheral)
    }
}

/// Why a lane characteristic's value offers no lane.
public enum LaneOfferError: Error, Sendable, Equatable, CustomStringConvertible {
    case wrongLength(Int)
    case notDynamic(UInt16)
    case noToken

    public var description: String {
        switch self {
        case .wrongLength(let count): "the lane characteristic holds \(count) bytes, not 6"
        case .notDynamic(let value): "the lane characteristic names PSM \(value), not one of 0x0080-0x00FF"
        case .noToken: "the lane characteristic names no peripheral token (0)"
        }
    }
}
