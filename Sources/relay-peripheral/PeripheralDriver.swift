import RelayApp
import RelayCLI
import RelayRuntime

/// relay-peripheral's driver: the shared `ProgramDriver` over `PeripheralSession`, performing
/// the session's actions with `PeripheralPerformer`.
typealias PeripheralDriver = ProgramDriver<PeripheralSession>

/// relay-peripheral's own part of the driver: performs the session's calls on bluetoothd
/// through its backend (the driver performs the shared actions: reports, timers, received
/// messages, command completions).
final class PeripheralPerformer: ActionPerformer {
    private unowned let driver: PeripheralDriver
    let backend: any PeripheralBackend

    init(driver: PeripheralDriver, backend: any PeripheralBackend) {
        self.driver = driver
        self.backend = backend
    }

    func perform(_ action: PeripheralAction) {
        switch action {
        case .program: break  // the driver's own
        case .registerApplication(let ticket): backend.registerApplication(ticket)
        case .unregisterApplication: backend.unregisterApplication()
        case .registerAdvertisement(let ticket, let name, let interval):
            backend.registerAdvertisement(ticket, name: name, interval: interval)
        case .unregisterAdvertisement: backend.unregisterAdvertisement()
        case .renewAdvertisement(let ticket, let name, let interval):
            backend.renewAdvertisement(ticket, name: name, interval: interval)
        case .send(let values, let carrier): backend.send(values, on: carrier)
        case .setReadValue(let value, let characteristic): backend.setReadValue(value, of: characteristic)
        case .disconnect(let address): backend.disconnect(address)
        case .closeLane(let lane): backend.closeLane(lane)
        }
    }

    /// Waits for the unregistrations the session asked for, then lets go of the bus.
    func shutdown(then done: @escaping () -> Void) {
        backend.shutdown(then: done)
    }
}
