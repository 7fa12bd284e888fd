import RelayApp
import RelayCLI
import RelayRuntime

/// relay-central's driver: the shared `ProgramDriver` over `CentralSession`, performing the
/// session's actions with `CentralPerformer`.
typealias CentralDriver = ProgramDriver<CentralSession>

/// relay-central's own part of the driver: performs the session's calls on bluetoothd through
/// its backend (the driver performs the shared actions: reports, timers, received messages,
/// command completions).
final class CentralPerformer: ActionPerformer {
    private unowned let driver: CentralDriver
    let backend: any CentralBackend

    init(driver: CentralDriver, backend: any CentralBackend) {
        self.driver = driver
        self.backend = backend
    }

    func perform(_ action: CentralAction) {
        switch action {
        case .program: break  // the driver's own
        case .startDiscovery(let services): backend.startDiscovery(services: services)
        case .stopDiscovery: backend.stopDiscovery()
        case .connect(let id, let timeout): backend.connect(id, timeout: timeout)
        case .disconnect(let id): backend.disconnect(id)
        case .findCharacteristics(let id): backend.findCharacteristics(of: id)
        case .startNotify(let id): backend.startNotify(id)
        case .acquireWrite(let id): backend.acquireWrite(id)
        case .acquireNotify(let id): backend.acquireNotify(id)
        case .readMTU(let id): backend.readMTU(id)
        case .send(let value, let carrier): backend.send(value, on: carrier)
        case .releaseSockets: backend.releaseSockets()
        case .readValue(let role, let id): backend.readValue(role, of: id)
        case .readLanePSM(let id): backend.readLanePSM(id)
        case .openLane(let device, let psm, let security, let timeout):
            backend.openLane(to: device, psm: psm, security: security, timeout: timeout)
        case .closeLane: backend.closeLane()
        case .pair(let id): backend.pair(id)
        case .answerPasskey(let passkey): backend.answerPasskey(passkey)
        case .unpair(let id): backend.unpair(id)
        }
    }

    /// Closes the sockets and disconnects the peer the session was leaving, if any.
    func shutdown(then done: @escaping () -> Void) {
        backend.shutdown(disconnecting: driver.session.peer?.id, then: done)
    }
}
