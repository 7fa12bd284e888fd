// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "relay",
    products: [
        .library(name: "RelayProtocol", targets: ["RelayProtocol"]),
        .library(name: "Shared", targets: ["Shared"]),
        .executable(name: "relay-peripheral", targets: ["relay-peripheral"]),
        .executable(name: "relay-central", targets: ["relay-central"]),
    ],
    targets: [
        // Pure wire codec: counters, frames, chunker, reassembler. No I/O, no C.
        .target(name: "RelayProtocol"),

        // C libraries, brought in as system libraries.
        .systemLibrary(
            name: "CDBus", path: "Sources/CDBus", pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(
            name: "CReadline", path: "Sources/CReadline",
            providers: [.apt(["libreadline-dev"])]),

        // Shared runtime, split by layer so C stays at the edge.
        // RelayRuntime: the poll(2) event loop that owns every fd and timer.
        .target(name: "RelayRuntime", path: "Sources/Shared/Runtime"),
        // RelayDBus: the only module importing CDBus.
        .target(name: "RelayDBus", dependencies: ["CDBus", "RelayRuntime"], path: "Sources/Shared/DBus"),
        // RelayREPL: the only module importing CReadline.
        .target(name: "RelayREPL", dependencies: ["CReadline", "RelayRuntime"], path: "Sources/Shared/REPL"),
        // Shared: the typed BlueZ model, re-exporting the layers below.
        .target(
            name: "Shared", dependencies: ["RelayDBus", "RelayREPL", "RelayRuntime", "RelayProtocol"],
            path: "Sources/Shared/BlueZ"),

        .executableTarget(name: "relay-peripheral", dependencies: ["Shared", "RelayProtocol"]),
        .executableTarget(name: "relay-central", dependencies: ["Shared", "RelayProtocol"]),

        // Codec benchmark (make bench-codec); release build.
        .executableTarget(name: "relay-codec-bench", dependencies: ["RelayProtocol", "RelayDBus"], path: "benchmarks/codec"),

        // Test support shared by the integration tests: a private dbus-daemon, bluezoo.
        .target(name: "RelayTestSupport", dependencies: ["RelayDBus", "RelayRuntime"], path: "Tests/Support"),

        .testTarget(name: "RelayProtocolTests", dependencies: ["RelayProtocol"]),
        .testTarget(name: "RuntimeTests", dependencies: ["RelayRuntime"]),
        .testTarget(name: "DBusTests", dependencies: ["RelayDBus", "RelayRuntime", "RelayTestSupport"]),
        .testTarget(name: "REPLTests", dependencies: ["RelayREPL", "RelayRuntime"]),
        .testTarget(name: "BlueZTests", dependencies: ["Shared", "RelayTestSupport"]),
        .testTarget(name: "PeripheralTests", dependencies: ["relay-peripheral", "Shared", "RelayTestSupport"]),
        .testTarget(name: "CentralTests", dependencies: ["relay-central", "Shared", "RelayTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
