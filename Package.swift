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
        .target(name: "RelayProtocol", swiftSettings: withoutImplicitRuntimeImports),

        // C libraries, brought in as system libraries.
        .systemLibrary(
            name: "CDBus", path: "Sources/CDBus", pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(
            name: "CReadline", path: "Sources/CReadline",
            providers: [.apt(["libreadline-dev"])]),

        // Shared runtime, split by layer so C stays at the edge.
        // RelayRuntime: the poll(2) event loop that owns every fd and timer.
        .target(name: "RelayRuntime", path: "Sources/Shared/Runtime", swiftSettings: withoutImplicitRuntimeImports),
        // RelayDBus: the only module importing CDBus.
        .target(
            name: "RelayDBus", dependencies: ["CDBus", "RelayRuntime"], path: "Sources/Shared/DBus",
            swiftSettings: withoutImplicitRuntimeImports),
        // RelayREPL: the only module importing CReadline.
        .target(
            name: "RelayREPL", dependencies: ["CReadline", "RelayRuntime"], path: "Sources/Shared/REPL",
            swiftSettings: withoutImplicitRuntimeImports),
        // Shared: the typed BlueZ model, re-exporting the layers below.
        .target(
            name: "Shared", dependencies: ["RelayDBus", "RelayREPL", "RelayRuntime", "RelayProtocol"],
            path: "Sources/Shared/BlueZ", swiftSettings: withoutImplicitRuntimeImports),

        .executableTarget(
            name: "relay-peripheral", dependencies: ["Shared", "RelayProtocol"],
            swiftSettings: withoutImplicitRuntimeImports),
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
