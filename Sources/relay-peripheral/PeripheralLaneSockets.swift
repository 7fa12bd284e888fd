import RelayApp
import RelayBlueZ
import RelayProtocol
import RelayRuntime

/// The peripheral's L2CAP lane sockets (`--lane l2cap|auto`): the listener on a PSM the kernel
/// picks and the channels it accepted, each named by a `LaneID`. What they report becomes a
/// `PeripheralInput` for the driver; the session decides which channel is kept.
final class PeripheralLaneSockets {
    private unowned let driver: PeripheralDriver
    private let loop: EventLoop
    private var listener: LaneListener?
    /// The adapter address the listener is bound to (nil: every adapter's).
    private var boundAdapter: BluetoothAddress?
    private var security = LaneSecurity.low
    /// Whether `.laneListening` was fed.
    private var announced = false
    private var lanes: [LaneID: AcquiredLink] = [:]
    private var nextLane = 1

    init(driver: PeripheralDriver, loop: EventLoop) {
        self.driver = driver
        self.loop = loop
    }

    /// Listens for channels on every adapter, on a PSM the kernel picks (nil when it cannot: the
    /// lane is not offered). Said once `settle(on:)` has moved it onto the adapter in use.
    func listen(secure: Bool) -> LanePSM? {
        security = secure ? .secureConnections : .low
        do {
            let listener = try LaneListener(loop: loop, security: security)
            listener.onAccept = { [weak self] lane in self?.accepted(lane) }
            self.listener = listener
            return listener.psm
        } catch {
            driver.feed(.laneListening(.failure(.cannotListen(error.description))))
            return nil
        }
    }

    /// Moves the listener onto the adapter of public address `adapter` (nil: it has none; the
    /// listener stays on every adapter), on the same PSM when no other socket holds it on that
    /// address, else on one the kernel picks; says where it listens the first time and when the
    /// PSM changed. Returns the new PSM when it changed (the lane characteristic must say it).
    ///
    /// Bound to the adapter's own address, the listener wins that adapter's channels over a socket
    /// bound to every adapter, and no other socket can bind its PSM there: a local process that
    /// bound the PSM first (on every adapter, or on this one, which moves relay to another PSM)
    /// never gets a central's channel.
    func settle(on adapter: BluetoothAddress?) -> LanePSM? {
        guard let current = listener else { return nil }
        var changed: LanePSM?
        if let adapter, adapter != boundAdapter {
            let moved =
                (try? LaneListener(loop: loop, security: security, adapter: adapter, psm: current.psm))
                ?? (try? LaneListener(loop: loop, security: security, adapter: adapter))
            if let moved {
                moved.onAccept = { [weak self] lane in self?.accepted(lane) }
                current.close()
                listener = moved
                boundAdapter = adapter
                if moved.psm != current.psm { changed = moved.psm }
            }
        }
        if !announced || changed != nil, let psm = listener?.psm {
            announced = true
            driver.feed(.laneListening(.success(psm)))
        }
        return changed
    }

    private func accepted(_ opened: OpenedLane) {
        let id = LaneID(nextLane)
        nextLane += 1
        lanes[id] = opened.link
        opened.link.onEvent = { [weak self] event in
            guard let self else { return }
            switch event {
            case .received(let bytes): self.driver.feed(.laneReceived(id, bytes))
            case .writable: self.driver.feed(.carrierWritable(.lane(id)))
            case .closed:
                self.lanes[id] = nil
                self.driver.feed(.laneClosed(id))
            }
        }
        driver.feed(.laneOpened(id, from: opened.peer, mtu: opened.mtu, connection: opened.connection))
    }

    /// `units` in order on channel `id` until its socket is full; the driver hears how many it
    /// took, or that the socket failed (the session closes the channel then).
    func send(_ units: [[UInt8]], on id: LaneID) {
        guard let link = lanes[id] else { return }  // its hang-up is on its way
        var taken = 0
        for unit in units {
            switch link.send(unit) {
            case .sent:
                taken += 1
                continue
            case .wouldBlock:
                driver.feed(.sendFinished(.lane(id), .took(taken, full: true, paced: true)))
            case .failed(let code):
                driver.feed(.sendFinished(.lane(id), .failed(.socketFailed(errno: code))))
            }
            return
        }
        driver.feed(.sendFinished(.lane(id), .took(taken, full: false, paced: true)))
    }

    /// Closes channel `id` (no report: the session asked for it).
    func close(_ id: LaneID) {
        lanes.removeValue(forKey: id)?.close()
    }
}
