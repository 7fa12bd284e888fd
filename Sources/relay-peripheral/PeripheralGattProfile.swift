import RelayApp
import RelayBlueZ

/// The relay service as relay-peripheral serves and advertises it.
enum PeripheralGattProfile {
    /// The service our GATT application serves. Notifications may go through an `AcquireNotify`
    /// socket (flow control by writable readiness; `notifyPath` `.socket`) or `PropertiesChanged`
    /// signals only (`.signal`); writes always come through `WriteValue`, so every write names its
    /// central (an acquired write socket would not on BlueZ 5.66).
    /// `sessions`: also the session characteristic (protocol 2; not with `--protocol 1`).
    static func localService(notifyPath: NotifyPath = .socket, sessions: Bool = true) -> LocalService {
        LocalService(
            uuid: RelayProfile.service, primary: true,
            characteristics: [
                LocalCharacteristic(uuid: RelayProfile.writeCharacteristic, flags: [.read, .writeWithoutResponse]),
                LocalCharacteristic(
                    uuid: RelayProfile.notifyCharacteristic, flags: [.read, .notify],
                    supportsAcquireNotify: notifyPath == .socket),
            ] + (sessions ? [sessionCharacteristic(notifyPath: notifyPath)] : []))
    }

    /// Protocol 2's characteristic: relay centrals write hellos, data, acknowledgements and
    /// counters there and subscribe to it (and only they: the original apps never see it).
    static func sessionCharacteristic(notifyPath: NotifyPath) -> LocalCharacteristic {
        LocalCharacteristic(
            uuid: RelayProfile.sessionCharacteristic, flags: [.writeWithoutResponse, .notify],
            supportsAcquireNotify: notifyPath == .socket)
    }

    /// The Nordic UART Service for phone UART apps: RX takes writes with and without response
    /// (nRF Toolbox on iOS writes with response, long writes too; the others without), TX notifies.
    static func uartService() -> LocalService {
        LocalService(
            uuid: UARTProfile.service, primary: true,
            characteristics: [
                LocalCharacteristic(uuid: UARTProfile.rxCharacteristic, flags: [.write, .writeWithoutResponse]),
                LocalCharacteristic(uuid: UARTProfile.txCharacteristic, flags: [.notify]),
            ])
    }

    /// The advertisement: the relay service UUID and the LocalName.
    static func advertisement(name: AdvertisedName) -> AdvertisementData {
        AdvertisementData(kind: .peripheral, serviceUUIDs: [RelayProfile.service], localName: name.text)
    }
}
