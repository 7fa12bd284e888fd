import RelayDBus
import RelayProtocol

/// The argument of `Adapter1.SetDiscoveryFilter`: which advertisements discovery reports.
public struct DiscoveryFilter: Hashable, Sendable {
    /// Which radio to scan.
    public enum Transport: String, Sendable {
        case auto, bredr, le
    }

    /// Only devices advertising (or resolving) one of these services; empty means any.
    public var uuids: [BluetoothUUID]
    /// Scan LE, BR/EDR or both.
    public var transport: Transport?
    /// Only devices at least this strong (dBm); exclusive with `pathloss`.
    public var rssi: Int16?
    /// Only devices with at most this path loss (dB).
    public var pathloss: UInt16?
    /// Report every advertisement (RSSI updates) instead of only changes.
    public var duplicateData: Bool?
    /// Make the adapter discoverable while discovering.
    public var discoverable: Bool?
    /// Only devices whose address or name starts with this prefix.
    public var pattern: String?

    public init(
        uuids: [BluetoothUUID] = [], transport: Transport? = nil, rssi: Int16? = nil, pathloss: UInt16? = nil,
        duplicateData: Bool? = nil, discoverable: Bool? = nil, pattern: String? = nil
    ) {
        self.uuids = uuids
        self.transport = transport
        self.rssi = rssi
        self.pathloss = pathloss
        self.duplicateData = duplicateData
        self.discoverable = discoverable
        self.pattern = pattern
    }

    /// The `a{sv}` BlueZ expects; unset fields are left out (BlueZ's defaults apply).
    public var dbusValue: DBusValue {
        var entries: [String: DBusValue] = [:]
        if !uuids.isEmpty { entries["UUIDs"] = .strings(uuids.map(\.description)) }
        if let transport { entries["Transport"] = .string(transport.rawValue) }
        if let rssi { entries["RSSI"] = .int16(rssi) }
        if let pathloss { entries["Pathloss"] = .uint16(pathloss) }
        if let duplicateData { entries["DuplicateData"] = .boolean(duplicateData) }
        if let discoverable { entries["Discoverable"] = .boolean(discoverable) }
        if let pattern { entries["Pattern"] = .string(pattern) }
        return .stringDict(entries)
    }
}

/// How `WriteValue` writes a characteristic.
public enum WriteType: String, Sendable {
    /// Write without response (ATT Write Command).
    case command
    /// Write with response (ATT Write Request).
    case request
    /// Reliable write (prepare + execute).
    case reliable
}
