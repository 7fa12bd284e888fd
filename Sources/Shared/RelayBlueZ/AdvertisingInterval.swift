/// How often an advertisement goes on the air: `LEAdvertisement1`'s `MinInterval` and
/// `MaxInterval`, in milliseconds (the same value for both).
///
/// bluetoothd 5.82 reads both always; 5.66 only when it runs with `--experimental` (`-E`), and
/// otherwise advertises at the kernel's default, 1.28 s. A central that scans finds an advertiser
/// within a few of its intervals, so the shorter the interval, the sooner a room is in; each
/// advertising event takes the radio for about 0.4 ms on each of three channels (a 31-byte
/// advertisement at 1M), a little more when a scanner asks for the scan response.
public struct AdvertisingInterval: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Milliseconds between advertising events.
    public let milliseconds: UInt32

    /// The range the Bluetooth Core specification allows (20 ms to 10.24 s for legacy
    /// advertising; BlueZ refuses values outside 20 ms ... 10485.759 s).
    public static let range: ClosedRange<UInt32> = 20...10_240

    /// What relay-peripheral asks for unless told otherwise: fifteen centrals find it within
    /// a second or two, where the default 1.28 s took them tens of seconds.
    public static let relayDefault = AdvertisingInterval(milliseconds: 100)!

    /// nil outside `range`.
    public init?(milliseconds: UInt32) {
        guard Self.range.contains(milliseconds) else { return nil }
        self.milliseconds = milliseconds
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public var description: String { "\(milliseconds) ms" }
}
