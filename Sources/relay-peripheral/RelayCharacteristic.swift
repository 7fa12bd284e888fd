/// The relay characteristics: the two of the original apps (which centrals can read) and the
/// session characteristic of protocol 2.
enum RelayCharacteristic: Equatable, Sendable {
    case write
    case notify
    case session
    /// The UART service's TX (NUS): text for phone UART apps.
    case uartTX
}
