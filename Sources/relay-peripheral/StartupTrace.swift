#if canImport(Glibc)
    import Glibc
#endif

/// Opt-in trace of the start-up path (`RELAY_TRACE_STARTUP=1`): one line on stderr per step,
/// `startup-trace <ms> <step>`, in milliseconds since the process started (the kernel's start
/// time of the process, 10 ms granularity, so the first figure includes exec and loading).
/// Off by default; costs one `getenv` when off.
enum StartupTrace {
    /// Whether the trace is on (read once).
    nonisolated(unsafe) private static var enabled: Bool? = nil
    /// The process start on `CLOCK_BOOTTIME`, in seconds (read once).
    nonisolated(unsafe) private static var processStart: Double = 0
    /// Steps already marked with `once`.
    nonisolated(unsafe) private static var seen: Set<String> = []

    private static var isOn: Bool {
        if let enabled { return enabled }
        let on = getenv("RELAY_TRACE_STARTUP").map { String(cString: $0) == "1" } ?? false
        enabled = on
        if on { processStart = readProcessStart() ?? bootTime() }
        return on
    }

    /// Prints `step` with the time since the process started.
    static func mark(_ step: @autoclosure () -> String) {
        guard isOn else { return }
        let millis = (bootTime() - processStart) * 1000
        let line = "startup-trace \(format3(millis)) \(step())\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// Like `mark`, the first time `step` is seen only.
    static func once(_ step: String) {
        guard isOn, seen.insert(step).inserted else { return }
        mark(step)
    }

    private static func format3(_ value: Double) -> String {
        let micros = Int((value * 1000).rounded())
        let fraction = String(abs(micros) % 1000)
        return "\(micros / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    private static func bootTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Field 22 of `/proc/self/stat` (start time in clock ticks since boot).
    private static func readProcessStart() -> Double? {
        guard let file = fopen("/proc/self/stat", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let text = String(cString: buffer)
        // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); field 22 is fields[19].
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        let hertz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return hertz > 0 ? ticks / hertz : nil
    }
}
