import RelayDBus
import RelayProtocol

/// The options BlueZ passes to a local characteristic's `ReadValue`, `WriteValue`,
/// `AcquireWrite` and `AcquireNotify`: who is asking, over which MTU, at which offset.
public struct GattRequest: Hashable, Sendable {
    /// The remote device (`device`), when given.
    public let device: ObjectPath?
    /// The link's ATT MTU (`mtu`), when given.
    public let mtu: MTU?
    /// The value offset (`offset`, 0 when absent).
    public let offset: UInt16
    /// `LE` or `BR/EDR` (`link`), when given.
    public let link: String?
    /// The write procedure (`type`), for writes.
    public let writeType: WriteType?
    /// `prepare-authorize`: the write is only an authorization check of a prepared write.
    public let prepareAuthorize: Bool

    /// Parses the options dictionary (`a{sv}`); unknown or mistyped entries are ignored.
    public init(options: [String: DBusValue]) {
        device = options["device"]?.asObjectPath
        mtu = options["mtu"]?.asUInt16.map { MTU(clamping: Int($0)) }
        offset = options["offset"]?.asUInt16 ?? 0
        link = options["link"]?.asString
        writeType = options["type"]?.asString.flatMap(WriteType.init(rawValue:))
        prepareAuthorize = options["prepare-authorize"]?.asBool ?? false
    }

    /// The device's address, read from its object path (`.../dev_AA_BB_CC_DD_EE_FF`).
    public var deviceAddress: BluetoothAddress? {
        guard let last = device?.lastComponent, last.hasPrefix("dev_") else { return nil }
        return BluetoothAddress(String(last.dropFirst(4)))
    }
}
