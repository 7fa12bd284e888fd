import RelayApp
import RelayBlueZ
import RelayEndpoint
import RelayProtocol
import XCTest

@testable import relay_peripheral

let centralA = BluetoothAddress("00:AA:01:01:00:01")!
let centralB = BluetoothAddress("00:AA:01:02:00:02")!
/// The adapter the sessions under test run on.
let hci0 = AdapterInfo(name: "hci0", address: BluetoothAddress("00:AA:01:00:00:00"))

/// A registration failure as bluetoothd would cause it.
func applicationFailure(_ text: String) -> RegistrationFailure {
    .application(BlueZError(.failed, text), adapter: "hci0")
}

func advertisementFailure(_ text: String) -> RegistrationFailure {
    .advertisement(BlueZError(.notPermitted, text), adapter: "hci0", name: "sample", supports: nil)
}

/// The `counter` event of `value` written by `central`.
func counterEvent(from central: BluetoothAddress?, _ value: UInt32) -> PeripheralEvent {
    .transfer(.counter(from: PeerName(.central, central), Counter(value)))
}

extension PeripheralEvent {
    /// The message report, for `message` events.
    var messageReport: ReceivedMessageReport? {
        if case .transfer(.message(let report)) = self { return report }
        return nil
    }

    /// Who dropped what, for `dropped` events.
    var drop: (from: BluetoothAddress?, partial: PartialMessageReport, reason: DropReason)? {
        if case .transfer(.dropped(let from, let partial, let reason)) = self { return (from.address, partial, reason) }
        return nil
    }

    /// The counter and its writer, for `counter` events.
    var counterValue: (from: BluetoothAddress?, value: UInt32)? {
        if case .transfer(.counter(let from, let counter)) = self { return (from.address, counter.value) }
        return nil
    }
}

extension Array where Element == PeripheralAction {
    /// The events among the actions, in order (a saved message counts as its `message` event).
    var events: [PeripheralEvent] {
        compactMap {
            switch $0 {
            case .program(.report(let event)): return event
            case .program(.deliver(let arrival)): return .transfer(.message(arrival.report))
            default: return nil
            }
        }
    }

    var eventNames: [String] { events.map(\.name) }

    /// The values handed to bluetoothd.
    var notified: [[UInt8]] {
        compactMap { if case .send(let values, .notification) = $0 { return values[0] } else { return nil } }
    }

    var applicationTicket: RegistrationTicket? {
        for action in self { if case .registerApplication(let ticket) = action { return ticket } }
        return nil
    }

    var advertisementTicket: RegistrationTicket? {
        for action in self { if case .registerAdvertisement(let ticket, _, _) = action { return ticket } }
        return nil
    }
}

extension PeripheralSession {
    /// A session powered on, registered and advertising.
    static func advertising(_ settings: PeripheralSettings = PeripheralSettings()) -> PeripheralSession {
        var session = PeripheralSession(settings: settings)
        _ = session.handle(.adapter(.poweredOn, hci0))
        let started = session.start()
        _ = session.handle(.applicationRegistered(started.applicationTicket!))
        _ = session.handle(.advertisementRegistered(started.advertisementTicket!))
        return session
    }

    /// Hands over every queued value as a socket would take it (each `.notify` answered
    /// `.sent`), returning the values and the events that came with them.
    mutating func drain() -> (values: [[UInt8]], events: [PeripheralEvent]) {
        var values: [[UInt8]] = []
        var events: [PeripheralEvent] = []
        while let value = sending.inFlight {
            values.append(value.bytes)
            events += handle(.sendFinished(.notification(.notify), .took(1, full: false, paced: true))).events
        }
        return (values, events)
    }
}

/// The messages a reassembler rebuilds from `values`.
func reassemble(_ values: [[UInt8]]) -> [Message] {
    var reassembler = Reassembler()
    var messages: [Message] = []
    for value in values {
        for event in reassembler.receive(value) {
            if case .message(let received) = event { messages.append(received.message) }
        }
    }
    return messages
}

/// Frames of `message` as a central would write them at `mtu`.
func frames(of message: Message, mtu: Int, id: UInt8 = 0) -> [[UInt8]] {
    Array(MessageFrames(message: message, id: MessageID(id), mtu: MTU(mtu)!, carrier: .write))
}
