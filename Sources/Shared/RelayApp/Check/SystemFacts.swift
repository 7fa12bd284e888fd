#if canImport(Glibc)
    import Glibc
#endif

/// What `--check` reads from the system outside the bus, read-only: the rfkill switches
/// (`/sys/class/rfkill`) and the installed BlueZ package (dpkg's database). `root` is `/` except
/// in tests.
public struct SystemFacts: Sendable {
    /// The state of one rfkill switch.
    public struct RFKill: Equatable, Sendable {
        /// Blocked by software (`rfkill block`, airplane mode).
        public var soft: Bool
        /// Blocked by hardware (a switch, a key).
        public var hard: Bool
    }

    /// An installed version, `5.66-1+deb12u2` read as major 5, minor 66.
    public struct Version: Comparable, Sendable, CustomStringConvertible {
        public let major: Int
        public let minor: Int
        /// As the package database writes it.
        public let text: String

        public init?(_ text: String) {
            let numbers = text.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
            guard numbers.count == 2 else { return nil }
            major = numbers[0]
            minor = numbers[1]
            self.text = text
        }

        public static func < (left: Version, right: Version) -> Bool {
            (left.major, left.minor) < (right.major, right.minor)
        }

        public static func == (left: Version, right: Version) -> Bool {
            (left.major, left.minor) == (right.major, right.minor)
        }

        public var description: String { text }
    }

    /// The oldest BlueZ relay is built for: `LEAdvertisingManager1` and `GattManager1` out of
    /// experimental, `AcquireWrite`/`AcquireNotify` (5.48), and the tested 5.66 and 5.82 after it.
    public static let oldestBlueZ = Version("5.48")!

    public let root: String

    public init(root: String = "/") {
        self.root = root.hasSuffix("/") ? root : root + "/"
    }

    /// The rfkill switch of the adapter named `adapter` (`hci0`), nil when it has none.
    public func rfkill(of adapter: String) -> RFKill? {
        let folder = root + "sys/class/rfkill"
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("rfkill") else { continue }
            let path = folder + "/" + name
            guard read(path + "/name") == adapter else { continue }
            return RFKill(soft: read(path + "/soft") == "1", hard: read(path + "/hard") == "1")
        }
        return nil
    }

    /// The version of the installed `bluez` package, from dpkg's database; nil when there is none.
    public func installedBlueZ() -> Version? {
        guard let status = read(root + "var/lib/dpkg/status", limit: 64 << 20) else { return nil }
        // Stanzas are separated by empty lines; the one of the installed bluez package names it.
        var package = ""
        var version: String?
        var installed = false
        let lines = status.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) + [""]
        for line in lines {
            if line.isEmpty {
                if package == "bluez", installed, let version { return Version(version) }
                package = ""
                version = nil
                installed = false
            } else if line.hasPrefix("Package: ") {
                package = String(line.dropFirst("Package: ".count))
            } else if line.hasPrefix("Version: ") {
                version = String(line.dropFirst("Version: ".count))
            } else if line.hasPrefix("Status: ") {
                installed = line.hasSuffix(" installed")
            }
        }
        return nil
    }

    /// Whether bluetoothd's configuration (`/etc/bluetooth/main.conf`) sets `Client = false`
    /// under `[GATT]` (BlueZ 5.74 and later: bluetoothd does not read the services of every
    /// device that connects). False when the file or the setting is not there.
    public func gattClientDisabled() -> Bool {
        guard let text = read(root + "etc/bluetooth/main.conf", limit: 1 << 16) else { return false }
        func trimmed(_ text: Substring) -> String {
            String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        }
        var section = ""
        for raw in text.split(separator: "\n") {
            let line = trimmed(raw)
            if line.hasPrefix("[") {
                section = line
            } else if section == "[GATT]", !line.hasPrefix("#") {
                let parts = line.split(separator: "=", maxSplits: 1).map(trimmed)
                if parts.count == 2, parts[0] == "Client" { return parts[1].lowercased() == "false" }
            }
        }
        return false
    }

    /// The BlueZ release that reads `[GATT] Client` (see `gattClientDisabled()`).
    public static let gattClientSetting = Version("5.74")!

    /// A small file's text, its trailing line feed removed; nil when it cannot be read.
    private func read(_ path: String, limit: Int = 4096) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
