/// The relay wire protocol version this implementation speaks (the low nibble of every frame's byte 0).
public enum RelayProtocolVersion {
    /// Version 1.
    public static let current: UInt8 = 1
}
