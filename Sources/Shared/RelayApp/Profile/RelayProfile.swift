import RelayBlueZ
import RelayProtocol

/// The relay GATT service, as the original iPhone and Watch apps define it: one primary service
/// with a write characteristic (central to peripheral) and a notify characteristic (peripheral to
/// central). Both programs and every test peer use these UUIDs.
public enum RelayProfile {
    /// The relay service.
    public static let service = BluetoothUUID("6B5C4A86-CFB7-4031-98EB-09DF5E2543F0")!
    /// Read + write-without-response: centrals write counters and frames here.
    public static let writeCharacteristic = BluetoothUUID("4551ABAE-CE14-4F9E-B31A-E61FC372E480")!
    /// Read + notify: the peripheral notifies counters and frames here.
    public static let notifyCharacteristic = BluetoothUUID("DFB13451-1740-4F8A-B0F0-7C20D79E8BDF")!
    /// Write-without-response + notify, relay's own (not in the original apps): protocol version
    /// 2 (handshake, data, acknowledgements) between relay programs (docs/protocol.md).
    public static let sessionCharacteristic = BluetoothUUID("A559017E-46D9-46DA-84A8-FE75D26E0816")!
    /// Served by `relay-peripheral --secure` only (secure-read, never read by relay): its presence
    /// tells a relay central to pair before it touches anything else, since its discovery needs
    /// no security while every other access does (docs/protocol.md, "Secure mode").
    public static let pairingCharacteristic = BluetoothUUID("3C1F2E9A-5B7D-4E61-9A0C-8D2F6B41E7C5")!
    /// Read-only, served with `--lane l2cap|auto`: the PSM of the peripheral's L2CAP lane as a
    /// little-endian UInt16, then the peripheral's token (`LaneOffer`, 6 bytes), under the UUID
    /// Core Bluetooth apps look for (`CBUUIDL2CAPPSMCharacteristicString`), so an iPhone app can
    /// open the channel too.
    public static let laneCharacteristic = BluetoothUUID("ABDD3056-28FA-441D-A470-55A75A52553A")!
}

/// The Nordic UART Service (NUS) that phone UART apps speak (nRF Toolbox, nRF Connect,
/// Bluefruit Connect, Serial Bluetooth Terminal): relay-peripheral serves it next to the relay
/// service (`--no-nus` turns it off).
public enum UARTProfile {
    /// The service.
    public static let service = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    /// RX: the phone writes text here (write, write-without-response).
    public static let rxCharacteristic = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!
    /// TX: the phone subscribes; text comes as notifications.
    public static let txCharacteristic = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!
}
