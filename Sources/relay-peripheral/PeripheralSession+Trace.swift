import RelayApp
import RelayProtocol

/// `--trace`: a `trace` event for every value a central wrote and every value handed to
/// bluetoothd as a notification (once it took it) or queued on the L2CAP channels, paced by
/// `TraceReports`.
extension PeripheralSession {
    /// The trace events `input` brings; `handedOver` is the value that was in flight before it.
    mutating func traceReports(for input: PeripheralInput, handedOver: OutgoingValue?) -> [PeripheralAction] {
        let events: [TraceOutput]
        switch input {
        case .written(let bytes, let from, _):
            events = trace(bytes, .incoming, .write, peer: from)
        case .sessionWritten(let bytes, let from, _):
            events = trace(bytes, .incoming, .session, peer: from)
        case .uartWritten(let bytes, let from, _):
            events = trace(bytes, .incoming, .uartRX, peer: from)
        case .sendFinished(.notification, .took(let taken, _, _)) where taken > 0:
            guard let value = handedOver, case .notification(let notified) = value.route else { return [] }
            let characteristic: TracedCharacteristic
            switch notified {
            case .session: characteristic = .session
            case .uartTX: characteristic = .uartTX
            case .write, .notify, .lane, .uartRX: characteristic = .notify
            }
            events = trace(value.bytes, .outgoing, characteristic, peer: nil)
        case .program(.tick):
            events = trace?.flush(at: now) ?? []
        default:
            return []
        }
        return events.map { .report(.trace($0)) }
    }

    /// The trace event of a value queued on the centrals' L2CAP channels.
    mutating func traceSentOnLanes(_ value: [UInt8]) -> [PeripheralAction] {
        trace(value, .outgoing, .lane, peer: nil).map { .report(.trace($0)) }
    }

    /// The trace event of a value that arrived on `central`'s L2CAP channel.
    mutating func traceLaneValue(_ value: [UInt8], from central: BluetoothAddress) -> [PeripheralAction] {
        trace(value, .incoming, .lane, peer: central).map { .report(.trace($0)) }
    }

    private mutating func trace(
        _ bytes: [UInt8], _ direction: TransferDirection, _ characteristic: TracedCharacteristic,
        peer: BluetoothAddress?
    ) -> [TraceOutput] {
        trace?.trace(bytes, direction, on: characteristic, peer: peer.map { PeerName(.central, $0) }, at: now) ?? []
    }
}
