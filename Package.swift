// swift-tools-version:6.0
import PackageDescription

// relay-peripheral's modules are compiled without the implicit `_Concurrency` and
// `_StringProcessing` imports: they use neither (one EventLoop on the main thread, no async, no
// Regex), and without the imports the program does not load libswift_Concurrency, libdispatch,
// libBlocksRuntime, libswift_StringProcessing, libswift_RegexParser and libswift_Builtin_float
// at start (6 of 24 shared objects; launch -> advertising is a goal, docs/performance.md). A
// module that needs one of them says so with `import _Concurrency` / `import _StringProcessing`.
let withoutImplicitRuntimeImports: [SwiftSetting] = [
    .unsafeFlags([
        "-Xfrontend", "-disable-implicit-concurrency-module-import",
        "-Xfrontend", "-disable-implicit-string-processing-module-import",
    ])
]

/// What a program's tests import: the program and the modules it is built from.
func programTestDependencies(_ program: String) -> [Target.Dependency] {
    [
        .target(name: program), "RelayApp", "RelayEndpoint", "RelayBlueZ", "RelayCLI", "RelayREPL", "RelayRuntime",
        "RelayProtocol", "RelayTestSupport",
    ]
}

/// A library module in `Sources/<name>` (the wire protocol) or `Sources/Shared/<name>` (what both
/// programs are built from): the folder has the module's name.
func module(_ name: String, _ dependencies: [Target.Dependency] = [], shared: Bool = true) -> Target {
    .target(
        name: name, dependencies: dependencies, path: shared ? "Sources/Shared/\(name)" : "Sources/\(name)",
        swiftSettings: withoutImplicitRuntimeImports)
}

let package = Package(
    name: "relay",
    products: [
        .executable(name: "relay-peripheral", targets: ["relay-peripheral"]),
        .executable(name: "relay-central", targets: ["relay-central"]),
    ],
    targets: [
        // The layers, from the bottom (ARCHITECTURE.md). C stays in two edge modules.
        // The wire protocol: counters, frames, chunker, reassembler, checksums. Pure: no I/O.
        module("RelayProtocol", shared: false),
        // The poll(2) event loop that owns every fd and timer.
        module("RelayRuntime"),
        // Console, JSON events, option and argument parsing, rate limiting, file arguments.
        module("RelayCLI"),
        // The readline REPL: the only module importing CReadline.
        module("RelayREPL", ["CReadline", "RelayRuntime", "RelayCLI"]),
        // The D-Bus client over libdbus-1: the only module importing CDBus.
        module("RelayDBus", ["CDBus", "RelayRuntime"]),
        // The typed BlueZ model: adapters, devices, remote GATT, our GATT application and
        // advertisement, acquired sockets.
        module("RelayBlueZ", ["RelayDBus", "RelayRuntime", "RelayProtocol"]),
        // One end of a relay link: the inbound pipeline and the outbound queue. Pure: no I/O,
        // time is an input.
        module("RelayEndpoint", ["RelayProtocol"]),
        // What both programs share: the relay GATT profile, options, adapter state, message
        // events and their shapes.
        module("RelayApp", ["RelayEndpoint", "RelayBlueZ", "RelayREPL", "RelayCLI", "RelayRuntime", "RelayProtocol"]),

        // C libraries, brought in as system libraries.
        .systemLibrary(
            name: "CDBus", path: "Sources/Shared/CDBus", pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(
            name: "CReadline", path: "Sources/Shared/CReadline",
            providers: [.apt(["libreadline-dev"])]),

        .executableTarget(
            name: "relay-peripheral",
            dependencies: [
                "RelayApp", "RelayEndpoint", "RelayBlueZ", "RelayREPL", "RelayCLI", "RelayRuntime", "RelayProtocol",
            ],
            swiftSettings: withoutImplicitRuntimeImports),
        .executableTarget(
            name: "relay-central",
            dependencies: [
                "RelayApp", "RelayEndpoint", "RelayBlueZ", "RelayREPL", "RelayCLI", "RelayRuntime", "RelayProtocol",
            ]),

        // Codec benchmark (make bench-codec); release build.
        .executableTarget(
            name: "relay-codec-bench", dependencies: ["RelayProtocol", "RelayDBus"], path: "benchmarks/codec"),

        // Test support shared by the tests: a private dbus-daemon, bluezoo, a scripted REPL.
        .target(
            name: "RelayTestSupport", dependencies: ["RelayDBus", "RelayRuntime", "RelayREPL", "RelayCLI"],
            path: "Tests/Support", exclude: ["busy_bluezoo.py"]),

        // The delivery simulation (two endpoints on a lossy, dropping link; time simulated): a
        // library for the unit tests and relay-simulation, which make test runs at full size in a
        // release build.
        .target(
            name: "RelaySimulation", dependencies: ["RelayEndpoint", "RelayProtocol", "RelayTestSupport"],
            path: "Tests/Simulation"),
        .executableTarget(name: "relay-simulation", dependencies: ["RelaySimulation"], path: "Tests/SimulationRunner"),

        // Unit tests: pure values, state machines, codecs, files and pipes; no bus.
        .testTarget(name: "RelayProtocolTests", dependencies: ["RelayProtocol", "RelayTestSupport"]),
        .testTarget(
            name: "RelayEndpointTests",
            dependencies: ["RelayEndpoint", "RelayProtocol", "RelayCLI", "RelayTestSupport", "RelaySimulation"]),
        .testTarget(name: "RelayRuntimeTests", dependencies: ["RelayRuntime"]),
        .testTarget(name: "RelayCLITests", dependencies: ["RelayCLI"]),
        .testTarget(name: "RelayREPLTests", dependencies: ["RelayREPL", "RelayCLI", "RelayRuntime"]),
        .testTarget(name: "RelayDBusTests", dependencies: ["RelayDBus"]),
        .testTarget(
            name: "RelayBlueZTests", dependencies: ["RelayBlueZ", "RelayDBus", "RelayRuntime", "RelayProtocol"]),
        .testTarget(
            name: "RelayAppTests",
            dependencies: [
                "RelayApp", "RelayEndpoint", "RelayBlueZ", "RelayCLI", "RelayREPL", "RelayProtocol", "RelayTestSupport",
            ]),
        .testTarget(name: "PeripheralTests", dependencies: programTestDependencies("relay-peripheral")),
        .testTarget(name: "CentralTests", dependencies: programTestDependencies("relay-central")),

        // Integration tests: D-Bus round trips on a private bus, BlueZ against bluezoo.
        .testTarget(
            name: "RelayDBusIntegrationTests", dependencies: ["RelayDBus", "RelayRuntime", "RelayTestSupport"]),
        .testTarget(
            name: "RelayBlueZIntegrationTests",
            dependencies: ["RelayBlueZ", "RelayDBus", "RelayRuntime", "RelayProtocol", "RelayTestSupport"]),
        .testTarget(name: "PeripheralIntegrationTests", dependencies: programTestDependencies("relay-peripheral")),
        .testTarget(name: "CentralIntegrationTests", dependencies: programTestDependencies("relay-central")),
    ],
    swiftLanguageModes: [.v6]
)
