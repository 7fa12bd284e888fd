/// What a build knows of its origin. `scripts/package` writes the commit into the tree it
/// builds the package from; a build of a working tree has none.
enum BuildInfo {
    /// The commit the package was built from (`git rev-parse --short=12 HEAD`), nil in a working tree.
    static let commit: String? = nil
}
