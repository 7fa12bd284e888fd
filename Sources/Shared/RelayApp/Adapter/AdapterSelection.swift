import RelayBlueZ
import RelayProtocol

/// The adapter a program uses, as events and `status` name it.
public struct AdapterInfo: Equatable, Sendable, CustomStringConvertible {
    public var name: String
    public var address: BluetoothAddress?
    /// Whether Linux advertises on it with extended advertising (bluetoothd then shows
    /// `SupportedSecondaryChannels`): Linux does not start it again after a central connects.
    public var extendedAdvertising: Bool

    public init(name: String, address: BluetoothAddress?, extendedAdvertising: Bool = false) {
        self.name = name
        self.address = address
        self.extendedAdvertising = extendedAdvertising
    }

    public init(_ adapter: AdapterSnapshot) {
        self.init(
            name: adapter.name, address: adapter.address,
            extendedAdvertising: !(adapter.advertising?.supportedSecondaryChannels.isEmpty ?? true))
    }

    /// `hci0 00:AA:01:00:00:00`.
    public var description: String { address.map { "\(name) \($0)" } ?? name }
}

/// Picks the adapter a program uses from what bluetoothd has.
public enum AdapterSelection {
    /// The adapter `choice` names, or when nil the first one (by path) that `suits`, else the
    /// first one; or why there is none.
    public static func choose(
        _ choice: AdapterChoice?, from adapters: [AdapterSnapshot],
        preferring suits: (AdapterSnapshot) -> Bool = { _ in true }
    ) -> Result<AdapterSnapshot, AdapterProblem> {
        let sorted = adapters.sorted { $0.name < $1.name }
        if let choice {
            guard let chosen = sorted.first(where: choice.matches) else {
                return .failure(.notFound(choice, available: sorted.map(\.description)))
            }
            return .success(chosen)
        }
        guard let chosen = sorted.first(where: suits) ?? sorted.first else { return .failure(.noAdapter) }
        return .success(chosen)
    }
}
