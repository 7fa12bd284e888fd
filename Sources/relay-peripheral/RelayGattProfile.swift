import Shared

/// The article's GATT layout: one primary service with a write and a notify characteristic.
enum RelayGattProfile {
    static let service = BluetoothUUID("6B5C4A86-CFB7-4031-98EB-09DF5E2543F0")!
    /// Centrals write counters and frames here (read + write-without-response).
    static let write = BluetoothUUID("4551ABAE-CE14-4F9E-B31A-E61FC372E480")!
    /// The peripheral notifies counters and frames here (read + notify).
    static let notify = BluetoothUUID("DFB13451-1740-4F8A-B0F0-7C20D79E8BDF")!

    /// The service as our GATT application serves it. Notifications may go through an
    /// `AcquireNotify` socket (flow control by writable readiness; `notifyPath` `.socket`) or
    /// `PropertiesChanged` signals only (`.signal`); writes always come through `WriteValue`, so
    /// every write names its central (an acquired write socket would not).
    static func localService(notifyPath: NotifyPath = .socket) -> LocalService {
        LocalService(uuid: service, primary: true, characteristics: [
            LocalCharacteristic(uuid: write, flags: [.read, .writeWithoutResponse]),
            LocalCharacteristic(uuid: notify, flags: [.read, .notify], supportsAcquireNotify: notifyPath == .socket),
        ])
    }

    static func advertisement(name: AdvertisedName) -> AdvertisementData {
        AdvertisementData(kind: .peripheral, serviceUUIDs: [service], localName: name.text)
    }
}
