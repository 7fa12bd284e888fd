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
    private(set) var state = Scan.idle
    /// Relay peripherals (or UART devices) found by the listing scan, in the order they appeared.
    private(set) var candidates: [Candidate] = []
    /// Devices a listing scan saw that are not candidates (wrong or no name, no relay service), for "nothing found".
    private(set) var othersSeen: [BluetoothAddress: String] = [:]
    /// A listing scan interrupted by the adapter going away, resumed when it is back.
    var resumeListing = false

    /// Discovery is asked to start for `purpose`; a listing starts its list afresh.
    mutating func start(_ purpose: ScanPurpose) {
        if purpose == .listing {
            candidates = []
            othersSeen = [:]
        }
        state = .starting(purpose)
    }

    /// Discovery started: the purpose it runs for (nil: it was not starting).
    mutating func started() -> ScanPurpose? {
        guard case .starting(let purpose) = state else { return nil }
        state = .active(purpose)
        return purpose
    }

    /// The scan running (or starting) serves `purpose` from now on; a listing starts its list afresh.
    mutating func serve(_ purpose: ScanPurpose) {
        if purpose == .listing { candidates = [] }
        switch state {
        case .idle: break
        case .starting: state = .starting(purpose)
        case .active: state = .active(purpose)
        }
    }

    /// The scan ends (or is not running): the purpose it had (nil: none ran).
    @discardableResult
    mutating func stop() -> ScanPurpose? {
        defer { state = .idle }
        return state.purpose
    }

    /// A candidate seen: known ones get their RSSI and object again; a new one is listed and returned.
    mutating func saw(_ device: DeviceInfo, name: String) -> Candidate? {
        if let index = candidates.firstIndex(where: { $0.address == device.address }) {
            candidates[index].rssi = device.rssi ?? candidates[index].rssi
            candidates[index].id = device.id
            return nil
        }
        let candidate = Candidate(
            index: candidates.count, id: device.id, address: device.address, name: name, rssi: device.rssi)
        candidates.append(candidate)
        return candidate
    }

    /// A device the listing scan saw that is not a candidate, and `why`.
    mutating func sawOther(_ address: BluetoothAddress, _ why: String) {
        othersSeen[address] = why
    }

    /// Why each device seen was not listed, when none was (for "nothing found").
    var othersWhenNoneFound: [String] {
        candidates.isEmpty ? othersSeen.keys.sorted().compactMap { othersSeen[$0] } : []
    }
}
