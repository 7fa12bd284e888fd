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
    private(set) var device: DeviceID?
    private(set) var resume = Resume.none
    /// bluetoothd asked our agent for the passkey and it was not typed yet.
    var awaitingPasskey = false
    /// Pairing was tried on the current link already (a refused subscription does not try again).
    private(set) var triedOnLink = false

    /// `Device1.Pair` starts on `device`; `resume` is taken up once it bonded.
    mutating func start(on device: DeviceID, then resume: Resume) {
        self.device = device
        self.resume = resume
        triedOnLink = true
    }

    /// `Pair` answered: what was to be taken up after it (nothing runs any more).
    mutating func finished() -> Resume {
        defer {
            device = nil
            resume = .none
            awaitingPasskey = false
        }
        return resume
    }

    /// A new link: pairing may be tried on it.
    mutating func newLink() {
        triedOnLink = false
    }
}
