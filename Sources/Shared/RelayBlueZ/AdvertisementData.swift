import RelayDBus
import RelayProtocol

/// The content of an `org.bluez.LEAdvertisement1` object.
public struct AdvertisementData: Hashable, Sendable {
    /// `peripheral` (connectable) or `broadcast` (not connectable).
    public enum Kind: String, Sendable {
        case peripheral, broadcast
    }

    public var kind: Kind
    /// Services listed in the advertisement (centrals filter on these).
    public var serviceUUIDs: [BluetoothUUID]
    /// The name to advertise (`LocalName`).
    public var localName: String?
    /// Extra items BlueZ adds itself (`tx-power`, `appearance`, `local-name`).
    public var includes: [String]
    /// Manufacturer data by company identifier.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service data by service UUID.
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// Advertise as general discoverable (overrides the adapter's `Discoverable`). `nil` means
    /// true for `peripheral` (BlueZ centrals ignore new LE devices that are not discoverable)
    /// and absent for `broadcast` (where BlueZ forbids it).
    public var discoverable: Bool?
    /// Seconds before BlueZ drops the advertisement by itself.
    public var timeout: UInt16?
    /// How often it goes on the air (nil: bluetoothd's default).
    public var interval: AdvertisingInterval?
    /// `Duration`: seconds the adapter gives it before turning to another advertisement of
    /// the adapter's (nil: bluetoothd's 2). On an adapter that advertises legacy, Linux also
    /// starts it again at that pace after a connection ended it, so it sets how often a new
    /// central can get in.
    public var rotation: UInt16?

    public init(
        kind: Kind = .peripheral, serviceUUIDs: [BluetoothUUID] = [], localName: String? = nil,
        includes: [String] = [], manufacturerData: [UInt16: [UInt8]] = [:],
        serviceData: [BluetoothUUID: [UInt8]] = [:], discoverable: Bool? = nil, timeout: UInt16? = nil,
        interval: AdvertisingInterval? = nil, rotation: UInt16? = nil
    ) {
        self.kind = kind
        self.serviceUUIDs = serviceUUIDs
        self.localName = localName
        self.includes = includes
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.discoverable = discoverable
        self.timeout = timeout
        self.interval = interval
        self.rotation = rotation
    }

    /// The properties of the exported object (variants unwrapped).
    public var properties: [String: DBusValue] {
        var result: [String: DBusValue] = ["Type": .string(kind.rawValue)]
        if !serviceUUIDs.isEmpty { result["ServiceUUIDs"] = .strings(serviceUUIDs.map(\.description)) }
        if let localName { result["LocalName"] = .string(localName) }
        if !includes.isEmpty { result["Includes"] = .strings(includes) }
        if !manufacturerData.isEmpty {
            result["ManufacturerData"] = .uint16Dict(manufacturerData.mapValues { .bytes($0) })
        }
        if !serviceData.isEmpty {
            result["ServiceData"] = .stringDict(
                Dictionary(uniqueKeysWithValues: serviceData.map { ($0.key.description, DBusValue.bytes($0.value)) }))
        }
        if let discoverable = discoverable ?? (kind == .peripheral ? true : nil) {
            result["Discoverable"] = .boolean(discoverable)
        }
        if let timeout { result["Timeout"] = .uint16(timeout) }
        if let rotation { result["Duration"] = .uint16(rotation) }
        if let interval {
            result["MinInterval"] = .uint32(interval.milliseconds)
            result["MaxInterval"] = .uint32(interval.milliseconds)
        }
        return result
    }

    /// The legacy advertising PDU's payload limit.
    public static let legacyMaximumLength = 31

    /// How many bytes of legacy advertising data this content needs, as BlueZ lays it out
    /// (flags, service UUID lists by size, manufacturer data, service data, complete local name).
    /// BlueZ refuses to register an advertisement that does not fit.
    public var advertisingDataLength: Int {
        var length = 3  // Flags: length, type, value
        let short = serviceUUIDs.filter { $0.uint16 != nil }.count
        let medium = serviceUUIDs.filter { $0.uint16 == nil && $0.isBaseDerived }.count
        let long = serviceUUIDs.count - short - medium
        if short > 0 { length += 2 + 2 * short }
        if medium > 0 { length += 2 + 4 * medium }
        if long > 0 { length += 2 + 16 * long }
        for (_, data) in manufacturerData { length += 2 + 2 + data.count }
        for (uuid, data) in serviceData {
            let uuidLength = uuid.uint16 != nil ? 2 : (uuid.isBaseDerived ? 4 : 16)
            length += 2 + uuidLength + data.count
        }
        if let localName { length += 2 + localName.utf8.count }
        return length
    }

    /// Whether the content fits a legacy advertisement.
    public var fitsLegacyAdvertisement: Bool { advertisingDataLength <= Self.legacyMaximumLength }

    /// The longest `LocalName` (in UTF-8 bytes) that still fits next to the rest of the content.
    public var maximumLocalNameLength: Int {
        var without = self
        without.localName = nil
        return max(0, Self.legacyMaximumLength - without.advertisingDataLength - 2)
    }
}
