import RelayProtocol

/// What `--version` prints: the program, the package version and the wire protocol version.
public enum ProgramVersion {
    /// The package version (both programs ship together).
    public static let package = "0.2.0"

    /// `relay-central 0.2.0 (relay wire protocol v1)`.
    public static func line(program: String) -> String {
        "\(program) \(package) (relay wire protocol v\(RelayProtocolVersion.current))"
    }
}
