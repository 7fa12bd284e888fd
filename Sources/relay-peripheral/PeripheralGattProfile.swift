import RelayApp
import RelayBlueZ

/// The relay service as relay-peripheral serves and advertises it.
enum PeripheralGattProfile {
    /// The service our GATT application serves. Notifications may go through an `AcquireNotify`
    /// socket (flow control by writable readiness; `notifyPath` `.socket`) or `PropertiesChanged`
    /// signals only (`.signal`); writes always come through `WriteValue`, so every write names its
    /// central (an acquired write socket would not on BlueZ 5.66).
    static func localService(notifyPath: NotifyPath = .socket) -> LocalService {
        LocalService(
            uuid: RelayProfile.service, primary: true,
            characteristics: [
                LocalCharacteristic(uuid: RelayProfile.writeCharacteristic, flags: [.read, .writeWithoutResponse]),
                LocalCharacteristic(
                    uuid: RelayProfile.notifyCharacteristic, flags: [.read, .notify],
                    supportsAcquireNotify: notifyPath == .socket),
            ])
    }

    /// The advertisement: the relay service UUID and the LocalName.
    static func advertisement(name: AdvertisedName) -> AdvertisementData {
        AdvertisementData(kind: .peripheral, serviceUUIDs: [RelayProfile.service], localName: name.text)
    }
}
