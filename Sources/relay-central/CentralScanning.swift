import RelayApp
import RelayBlueZ
import RelayProtocol

/// Why discovery runs.
enum ScanPurpose: Equatable {
    /// `scan`: list candidates until the time-out.
    case listing
    /// Find one device and connect to it; `persistent` scans have no time-out (reconnect, resume).
    case seeking(SeekTarget, persistent: Bool)
}

enum Scan: Equatable {
    case idle
    case starting(ScanPurpose)
    case active(ScanPurpose)

    var purpose: ScanPurpose? {
        switch self {
        case .idle: return nil
        case .starting(let purpose), .active(let purpose): return purpose
        }
    }
}

/// Where relay-central's scanning stands: the scan running (if any), what it found, and the
/// `scan` command waiting for discovery to start. Part of `CentralSession` (see
/// `CentralSession+Scanning`).
struct CentralScanning: Equatable, Sendable {
    var state = Scan.idle
    /// Relay peripherals (or UART devices) found by the listing scan, in the order they appeared.
    var candidates: [Candidate] = []
    /// Devices a listing scan saw that are not candidates (wrong or no name, no relay service), for "nothing found".
    var othersSeen: [BluetoothAddress: String] = [:]
    /// A listing scan interrupted by the adapter going away, resumed when it is back.
    var resumeListing = false
}
