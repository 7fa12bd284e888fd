/// Which of the two relay characteristics.
enum CharacteristicRole: String, Sendable, Equatable {
    case write
    case notify
}

/// Why a scan ended.
enum ScanStopReason: String, Sendable, Equatable {
    case timeout
    case requested
    case connecting
    case adapterLost = "adapter-lost"
}
