import Glibc
import RelayProtocol

// relay-codec-bench: throughput of the relay codec (release build: `make bench-codec`).
//   --markdown PATH   also write the table into PATH between
//                     <!-- codec-bench:begin --> and <!-- codec-bench:end -->
//   --sha256          only measure SHA-256 throughput (1 MiB) and print it
//   --dbus            only measure the D-Bus marshalling of WriteValue / PropertiesChanged

let arguments = Array(CommandLine.arguments.dropFirst())
var markdownPath: String?
if let index = arguments.firstIndex(of: "--markdown") {
    guard index + 1 < arguments.count else {
        printError("usage: relay-codec-bench [--markdown PATH]")
        exit(2)
    }
    markdownPath = arguments[index + 1]
}

if arguments.contains("--sha256") {
    for row in measureSHA256() {
        print("SHA-256 of 1 MiB, \(row.label): \(Int(row.megabytesPerSecond.rounded())) MB/s")
    }
    exit(0)
}

if arguments.contains("--dbus") {
    for row in measureDBus() {
        print("\(row.label): \((row.microseconds * 100).rounded() / 100) µs")
    }
    exit(0)
}

let sizes = [1 << 10, 64 << 10, 1 << 20]
let mtus = [23, 247, 517].map { MTU($0)! }
var results: [CodecResult] = []
for size in sizes {
    for mtu in mtus {
        let result = measureCodec(size: size, mtu: mtu)
        results.append(result)
        printError("measured \(sizeLabel(size)) at MTU \(mtu.value)")
    }
}

let table = renderTable(results)
print(table)
print(renderVerdict(results))
if let markdownPath {
    do {
        try writeSection(table: table, verdict: renderVerdict(results), machine: machineDescription(), to: markdownPath)
        print("wrote \(markdownPath)")
    } catch {
        printError("relay-codec-bench: \(error)")
        exit(1)
    }
}
if sink == 42 { print("") }  // keep the measured work observable
