import RelayBlueZ

/// Where pairing with the peripheral stands (secure mode).
struct CentralPairing: Equatable, Sendable {
    /// What to take up once the pairing in progress bonded.
    enum Resume: Equatable, Sendable {
        /// Nothing (`pair` typed on a link that was ready).
        case none
        /// Check these characteristics again (the peripheral serves the pairing characteristic).
        case characteristics([RemoteCharacteristic])
        /// Subscribe again (the subscription was refused for want of a bond).
        case subscribe
    }

    /// The device `Device1.Pair` runs on, and what follows it.
    var device: DeviceID?
    var resume = Resume.none
    /// bluetoothd asked our agent for the passkey and it was not typed yet.
    var awaitingPasskey = false
    /// Pairing was tried on the current link already (a refused subscription does not try again).
    var triedOnLink = false
}
