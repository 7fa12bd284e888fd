import RelayProtocol
import Shared
import XCTest

@testable import relay_peripheral

let centralA = BluetoothAddress("00:AA:01:01:00:01")!
let centralB = BluetoothAddress("00:AA:01:02:00:02")!

extension Array where Element == PeripheralAction {
    /// The events among the actions, in order.
    var events: [PeripheralEvent] {
        compactMap {
            switch $0 {
            case .report(let event): return event
            case .save(_, _, let event): return event
            default: return nil
            }
        }
    }

    var eventNames: [String] { events.map(\.name) }

    var applicationTicket: RegistrationTicket? {
        for action in self { if case .registerApplication(let ticket) = action { return ticket } }
        return nil
    }

    var advertisementTicket: RegistrationTicket? {
        for action in self { if case .registerAdvertisement(let ticket, _) = action { return ticket } }
        return nil
    }
}

extension PeripheralSession {
    /// A session powered on, registered and advertising.
    static func advertising(_ configuration: Configuration = Configuration()) -> PeripheralSession {
        var session = PeripheralSession(configuration: configuration)
        _ = session.handle(.adapter(.poweredOn, name: "hci0"))
        let started = session.start()
        _ = session.handle(.applicationRegistered(started.applicationTicket!))
        _ = session.handle(.advertisementRegistered(started.advertisementTicket!))
        return session
    }

    /// Drains the outbox, returning every value and the completion events.
    mutating func drain() -> (values: [[UInt8]], events: [PeripheralEvent]) {
        var values: [[UInt8]] = []
        var events: [PeripheralEvent] = []
        while let value = takeNextValue() {
            values.append(value.bytes)
            if let completion = value.completion { events.append(completion) }
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
    Array(MessageFrames(message: message, id: MessageID(id), mtu: MTU(mtu)!))
}
