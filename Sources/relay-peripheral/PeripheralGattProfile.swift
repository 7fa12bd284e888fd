import RelayApp
import RelayBlueZ
import RelayProtocol

/// The relay service as relay-peripheral serves and advertises it.
enum PeripheralGattProfile {
    /// The service our GATT application serves. Notifications may go through an `AcquireNotify`
    /// socket (flow control by writable readiness; `notifyPath` `.socket`) or `PropertiesChanged`
    /// signals only (`.signal`); writes always come through `WriteValue`, which names its central
    /// and carries its own bytes. No `AcquireWrite`: BlueZ 5.66 shares one write socket between
    /// centrals, and every version up to 5.82 at least flushes the writes that arrive while an
    /// `AcquireWrite` call is unanswered into the socket it returns, whoever sent them, each with
    /// whatever its ATT buffer holds by then (docs/reliability.md, known limits of BlueZ).
    /// `sessions`: also the session characteristic (protocol 2; not with `--protocol 1`).
    /// `secure` (`--secure`): every value needs an authenticated LE Secure Connections link
    /// (BlueZ's `secure-*` flags: security level 4), and the pairing characteristic tells relay
    /// centrals to pair before they subscribe.
    /// `lane`: the PSM of the L2CAP lane and this process's token, served in the lane
    /// characteristic (nil: no lane).
    static func localService(
        notifyPath: NotifyPath = .socket, sessions: Bool = true, secure: Bool = false, lane: LaneOffer? = nil
    )
        -> LocalService
    {
        var characteristics = [
            // Reads answer the last counter an admitted central wrote (the session sets it).
            LocalCharacteristic(
                uuid: RelayProfile.writeCharacteristic, flags: locked([.read, .writeWithoutResponse], secure),
                keepsWrites: false),
            LocalCharacteristic(
                uuid: RelayProfile.notifyCharacteristic, flags: locked([.read, .notify], secure),
                supportsAcquireNotify: notifyPath == .socket),
        ]
        if sessions { characteristics.append(sessionCharacteristic(notifyPath: notifyPath, secure: secure)) }
        if secure {
            characteristics.append(LocalCharacteristic(uuid: RelayProfile.pairingCharacteristic, flags: [.secureRead]))
        }
        if let lane {
            characteristics.append(
                LocalCharacteristic(
                    uuid: RelayProfile.laneCharacteristic, flags: locked([.read], secure), value: lane.encoded))
        }
        return LocalService(uuid: RelayProfile.service, primary: true, characteristics: characteristics)
    }

    /// `flags`, with `--secure`'s requirement on each access they allow: a read, a write and the
    /// subscription (its CCC write) need security level 4. bluetoothd drops a write command to
    /// such a value from a link below it silently, and answers a request with Insufficient
    /// Authentication. (`secure-write` makes BlueZ add the write-request property too.)
    static func locked(_ flags: CharacteristicFlags, _ secure: Bool) -> CharacteristicFlags {
        guard secure else { return flags }
        var result = flags
        if flags.contains(.read) { result.insert(.secureRead) }
        if !flags.isDisjoint(with: [.write, .writeWithoutResponse]) { result.insert(.secureWrite) }
        if flags.contains(.notify) { result.insert(.secureNotify) }
        return result
    }

    /// Protocol 2's characteristic: relay centrals write hellos, data, acknowledgements and
    /// counters there and subscribe to it (and only they: the original apps never see it).
    static func sessionCharacteristic(notifyPath: NotifyPath, secure: Bool = false) -> LocalCharacteristic {
        LocalCharacteristic(
            uuid: RelayProfile.sessionCharacteristic,
            flags: locked([.writeWithoutResponse, .notify], secure),
            supportsAcquireNotify: notifyPath == .socket)
    }

    /// The Nordic UART Service for phone UART apps: RX takes writes with and without response
    /// (nRF Toolbox on iOS writes with response, long writes too; the others without), TX notifies.
    static func uartService(secure: Bool = false) -> LocalService {
        LocalService(
            uuid: UARTProfile.service, primary: true,
            characteristics: [
                LocalCharacteristic(
                    uuid: UARTProfile.rxCharacteristic, flags: locked([.write, .writeWithoutResponse], secure)),
                LocalCharacteristic(uuid: UARTProfile.txCharacteristic, flags: locked([.notify], secure)),
            ])
    }

    /// The advertisement: the relay service UUID and the LocalName, every `interval`. Its
    /// `Duration` is 1 s (bluetoothd's default is 2): on an adapter that advertises legacy, a
    /// connection ends the advertising and Linux starts it again only when the advertisement's
    /// duration comes round, so a class dialling at once gets in one central a second instead
    /// of one every two (docs/performance.md, "the whole class").
    static func advertisement(name: AdvertisedName, interval: AdvertisingInterval) -> AdvertisementData {
        AdvertisementData(
            kind: .peripheral, serviceUUIDs: [RelayProfile.service], localName: name.text, interval: interval,
            rotation: advertisementRotation)
    }

    /// The advertisement's `Duration` in seconds (the least bluetoothd takes).
    static let advertisementRotation: UInt16 = 1
}
