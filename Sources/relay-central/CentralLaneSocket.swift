import RelayApp
import RelayBlueZ
import RelayProtocol
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// The central's L2CAP lane socket (`--lane l2cap|auto`): the channel opening, then the open
/// one. What it reports becomes a `CentralInput` for the driver.
final class CentralLaneSocket {
    private unowned let driver: CentralDriver
    private let loop: EventLoop
    private var connector: LaneConnector?
    private var link: AcquiredLink?

    init(driver: CentralDriver, loop: EventLoop) {
        self.driver = driver
        self.loop = loop
    }

    /// Opens a channel from `local` to `peer` on `psm` (an open one is closed first).
    func open(
        from local: (BluetoothAddress, LEAddressType), to peer: (BluetoothAddress, LEAddressType), psm: LanePSM,
        security: LaneSecurity, timeout: Double
    ) {
        close()
        connector = LaneConnector(
            loop: loop, local: local.0, localType: local.1, peer: peer.0, peerType: peer.1, psm: psm,
            security: security, timeout: timeout
        ) { [weak self] result in
            guard let self else { return }
            self.connector = nil
            switch result {
            case .failure(let error):
                self.driver.feed(.laneOpenFailed(.couldNotOpen(error.description)))
            case .success(let opened):
                self.link = opened.link
                opened.link.onEvent = { [weak self] event in
                    guard let self else { return }
                    switch event {
                    case .received(let bytes): self.driver.feed(.laneReceived(bytes))
                    case .writable: self.driver.feed(.carrierWritable(.lane))
                    case .closed:
                        self.link = nil
                        self.driver.feed(.laneClosed)
                    }
                }
                self.driver.feed(.laneOpened(opened.mtu))
            }
        }
    }

    /// One value on the channel, framed: the driver hears that it was sent, full or failed.
    func send(_ value: [UInt8]) {
        guard let link else { return driver.feed(.sendFinished(.failed(.closed(.lane)))) }
        switch link.send(Carrier.lane.framed(value)) {
        case .sent: driver.feed(.sendFinished(.sent))
        case .wouldBlock: driver.feed(.sendFinished(.full))
        case .failed(let code): driver.feed(.sendFinished(.failed(.socketFailed(.lane, errno: code))))
        }
    }

    /// Stops an opening and closes the channel (no report).
    func close() {
        connector?.cancel()
        connector = nil
        link?.close()
        link = nil
    }
}
