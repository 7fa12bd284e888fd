import RelayProtocol

/// What `--version` prints: the program, the package version, the wire protocol versions and the
/// commit the package was built from.
public enum ProgramVersion {
    /// The package version (both programs ship together; `make package` names the files after it).
    public static let package = "0.3.0"

    /// The highest wire protocol version spoken (2: delivery confirmed; 1 is spoken too, with
    /// the original apps and older relays).
    public static let wireProtocol = 2

    /// `relay-central 0.3.0 (wire protocol 2, also 1; commit 1a2b3c4d5e6f)`; a build of a
    /// working tree says `built from a working tree` instead of the commit.
    public static func line(program: String) -> String {
        let origin = BuildInfo.commit.map { "commit \($0)" } ?? "built from a working tree"
        return "\(program) \(package) (wire protocol \(wireProtocol), also \(RelayProtocolVersion.current); \(origin))"
    }
}
