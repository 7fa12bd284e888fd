#if canImport(Glibc)
    import Glibc
#endif

/// Where the browser page (`web/relay.html`: a relay central in Chrome or Edge, docs/cli.md) is
/// on this machine, for relay-peripheral's start-up line: beside an installed program
/// (`/usr/bin/relay-peripheral` → `/usr/share/relay/web/relay.html`), or in the repository a
/// build of it runs from (`.build/…/relay-peripheral` → `web/relay.html`).
enum BrowserPage {
    /// The page's absolute path, or nil when neither place holds it. `executable`: the program's
    /// path (this process's own by default).
    static func located(executable: String = "/proc/self/exe") -> String? {
        guard let executable = resolved(executable) else { return nil }
        var folder = parent(of: executable)
        let installed = folder + "/../share/relay/web/relay.html"
        if let page = resolved(installed) { return page }
        // A build: the repository is a few folders up (.build/<triple>/debug).
        for _ in 0..<5 {
            folder = parent(of: folder)
            if folder.isEmpty { break }
            if access(folder + "/Package.swift", F_OK) == 0, let page = resolved(folder + "/web/relay.html") {
                return page
            }
        }
        return nil
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    /// The absolute path without links or `..`, when a readable file is there.
    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        let text = String(cString: real)
        return access(text, R_OK) == 0 ? text : nil
    }
}
