/// Which of the two relay characteristics.
enum CharacteristicRole: String, Sendable, Equatable {
    case write
    case notify
}

/// Identifies a command handed to the session, so its completion can be reported.
typealias CommandToken = Int

/// Why a scan ended.
enum ScanStopReason: String, Sendable, Equatable {
    case timeout
    case requested
    case connecting
    case adapterLost = "adapter-lost"
}
