import RelayApp
import RelayProtocol

/// relay-peripheral's characteristics by their role: the two of the original apps (which
/// centrals can read), the session and lane characteristics of protocol 2 and the UART
/// service's two. The one table between roles and UUIDs.
enum RelayCharacteristic: Equatable, Sendable, CaseIterable {
    case write
    case notify
    case session
    case lane
    /// The UART service's RX (NUS): text from phone UART apps.
    case uartRX
    /// The UART service's TX (NUS): text for phone UART apps.
    case uartTX

    var uuid: BluetoothUUID {
        switch self {
        case .write: RelayProfile.writeCharacteristic
        case .notify: RelayProfile.notifyCharacteristic
        case .session: RelayProfile.sessionCharacteristic
        case .lane: RelayProfile.laneCharacteristic
        case .uartRX: UARTProfile.rxCharacteristic
        case .uartTX: UARTProfile.txCharacteristic
        }
    }

    /// The role of the characteristic `uuid` (nil: not one of relay's).
    init?(uuid: BluetoothUUID) {
        guard let role = Self.allCases.first(where: { $0.uuid == uuid }) else { return nil }
        self = role
    }
}
