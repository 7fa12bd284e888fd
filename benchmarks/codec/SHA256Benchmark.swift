import RelayProtocol

/// `relay-codec-bench --sha256`: SHA-256 throughput over a 1 MiB message, the way the programs
/// call it (`SHA256.hash(message.bytes)` on a `[UInt8]`, which is generic over `Sequence`), and
/// through the other shapes callers may pass (a slice, a non-contiguous sequence).
func measureSHA256(size: Int = 1 << 20) -> [(label: String, megabytesPerSecond: Double)] {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let slice = bytes[1...]
    let lazySequence = bytes.lazy.map { $0 }  // not contiguous: must stay correct, may be slower
    let seconds = medianSecondsPerRun(
        repetitions: 7, minimumSeconds: 0.05,
        [
            { sink &+= UInt64(SHA256.hash(bytes).bytes[0]) },
            { sink &+= UInt64(SHA256.hash(slice).bytes[0]) },
            { sink &+= UInt64(SHA256.hash(lazySequence).bytes[0]) },
        ])
    let labels = ["[UInt8] (what the programs pass)", "ArraySlice<UInt8>", "lazy map (non-contiguous)"]
    return zip(labels, seconds).map { ($0, Double(size) / $1 / 1e6) }
}
