internal import CReadline

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the interactive history is kept between runs, and how much of it.
///
/// The file is `$XDG_STATE_HOME/relay/<program>_history`, or
/// `~/.local/state/relay/<program>_history` when XDG_STATE_HOME is unset.
struct HistoryFile {
    let path: String
    let limit: Int

    /// The history file for `programName`, or nil when neither XDG_STATE_HOME nor HOME is set.
    static func standard(programName: String, limit: Int, environment: [String: String]) -> HistoryFile? {
        let directory: String
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            directory = state + "/relay"
        } else if let home = environment["HOME"], !home.isEmpty {
            directory = home + "/.local/state/relay"
        } else {
            return nil
        }
        return HistoryFile(path: directory + "/" + programName + "_history", limit: limit)
    }

    /// The directory part of ``path``.
    var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    /// Reads the saved history into readline (a missing file is fine).
    func load() {
        stifle_history(Int32(limit))
        _ = read_history(path)
    }

    /// Writes readline's history, creating the directory (mode 0700) when needed.
    func save() {
        makeDirectories(directory)
        if write_history(path) == 0 {
            _ = history_truncate_file(path, Int32(limit))
        }
    }

    private func makeDirectories(_ directory: String) {
        var partial = ""
        for component in directory.split(separator: "/") {
            partial += "/" + component
            _ = mkdir(partial, 0o700)
        }
    }
}

/// The process environment as a dictionary.
func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}
