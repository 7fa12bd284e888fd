import RelayApp
import RelayBlueZ
import RelayProtocol

/// `--trace`: a `trace` event for every value the peripheral notified (as it arrived) and every
/// value handed to bluetoothd to write, paced by `TraceReports`.
extension CentralSession {
    /// The characteristic a notification `input` carries a value of, if it does (looked at before
    /// the input is handled: handling it may end the link).
    func tracedCharacteristic(of input: CentralInput) -> (TracedCharacteristic, [UInt8])? {
        guard let relay = subscribingOrReadyLink else { return nil }
        let notified: TracedCharacteristic = relay.service == .nus ? .uartTX : relay.session != nil ? .session : .notify
        switch input {
        case .notification(let value): return (notified, value)
        case .valueChanged(let id, let value):
            guard id == relay.dataNotify, relay.notifyVia != .socket, !reading.isHoldingNotifications else {
                return nil
            }
            return (notified, value)
        default: return nil
        }
    }

    /// `actions` with a trace event before each value written, after the one `incoming` carried.
    mutating func traced(
        _ actions: [CentralAction], after input: CentralInput, incoming: (TracedCharacteristic, [UInt8])?
    ) -> [CentralAction] {
        var result: [CentralAction] = []
        if let (characteristic, value) = incoming {
            result += reports(value, .incoming, characteristic)
        } else if case .program(.tick) = input {
            result += (trace?.flush(at: now) ?? []).map { .report(.trace($0)) }
        }
        // A value sent again once its full carrier can take more was traced when first handed over.
        let retried: Bool
        if case .carrierWritable = input { retried = true } else { retried = false }
        for action in actions {
            if !retried, case .send(let value, let carrier) = action {
                result += reports(value, .outgoing, tracedCharacteristic(of: carrier))
            }
            result.append(action)
        }
        return result
    }

    /// What the trace calls the way a value went out.
    private func tracedCharacteristic(of carrier: Carrier) -> TracedCharacteristic {
        switch carrier {
        case .lane: return .lane
        case .gatt(let id, _):
            let link = subscribingOrReadyLink
            return link?.service == .nus ? .uartRX : id == link?.session ? .session : .write
        }
    }

    /// The trace events of a value that arrived on the L2CAP channel.
    mutating func traceLaneValue(_ value: [UInt8]) -> [CentralAction] {
        reports(value, .incoming, .lane)
    }

    private mutating func reports(
        _ value: [UInt8], _ direction: TransferDirection, _ characteristic: TracedCharacteristic
    ) -> [CentralAction] {
        let peer = PeerName(.peripheral, self.peer?.address)
        return (trace?.trace(value, direction, on: characteristic, peer: peer, at: now) ?? []).map {
            .report(.trace($0))
        }
    }
}
