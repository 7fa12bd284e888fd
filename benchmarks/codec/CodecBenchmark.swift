import RelayProtocol

/// One row of the table: one message size at one MTU, all throughputs in bytes of message per second.
struct CodecResult {
    var size: Int
    var mtu: MTU
    var frames: Int
    var overheadPercent: Double
    var memcpy: Double
    var checksum: Double
    var send: Double
    var receive: Double
    var pipeline: Double

    /// Chunking (one CRC pass plus framing) against one checksum pass.
    var sendRatio: Double { send / checksum }
    /// Reassembly (one CRC pass plus framing) against one checksum pass.
    var receiveRatio: Double { receive / checksum }
    /// Chunk + reassemble (two CRC passes) against one checksum pass.
    var pipelineRatio: Double { pipeline / checksum }
    /// Chunk + reassemble against two checksum passes, the checksum work it really contains.
    var pipelineTwoPassRatio: Double { pipeline / (checksum / 2) }
}

/// Measures the codec for a message of `size` bytes at `mtu`.
func measureCodec(size: Int, mtu: MTU) -> CodecResult {
    var generator = SplitMix(seed: UInt64(size) &* 31 &+ UInt64(mtu.value))
    let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    let message = Message(binary: bytes)
    let id = MessageID(1)
    let values = Array(MessageFrames(message: message, id: id, mtu: mtu, carrier: .write))
    let seconds = Double(size)

    // Plain memcpy of the message bytes.
    var destination = [UInt8](repeating: 0, count: size)
    let memcpy = {
        destination.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { source in target.copyMemory(from: source) }
        }
        sink &+= UInt64(destination[size / 2])
    }

    // One CRC-32C pass over the message bytes.
    let checksum = {
        bytes.withUnsafeBytes { sink &+= UInt64(CRC32C.checksum($0)) }
    }

    // State lives in locals inside each closure: captured variables of an escaping closure (and
    // globals) are accessed with dynamic exclusivity checks, which would be measured per frame.

    // Sender: CRC of the message plus every frame written into a reused value buffer.
    let send = {
        var frames = MessageFrames(message: message, id: id, mtu: mtu, carrier: .write)
        var value: [UInt8] = []
        var written = 0
        while frames.next(into: &value) { written &+= value.count }
        sink &+= UInt64(written)
    }

    // Receiver: every frame value through a reassembler, length and CRC checked on completion.
    let receive = {
        var reassembler = Reassembler()
        var events = 0
        for value in values { events &+= reassembler.receive(value).count }
        sink &+= UInt64(events)
    }

    // Pipeline: chunk and immediately reassemble, frame by frame.
    let pipeline = {
        var frames = MessageFrames(message: message, id: id, mtu: mtu, carrier: .write)
        var reassembler = Reassembler()
        var value: [UInt8] = []
        var events = 0
        while frames.next(into: &value) { events &+= reassembler.receive(value).count }
        sink &+= UInt64(events)
    }

    let times = medianSecondsPerRun([memcpy, checksum, send, receive, pipeline])
    let (memcpyTime, checksumTime, sendTime, receiveTime, pipelineTime) = (
        times[0], times[1], times[2], times[3], times[4]
    )

    // Sanity: the pipeline really delivers the message.
    var check = Reassembler()
    let delivered = values.flatMap { check.receive($0) }
    precondition(delivered == [.message(ReceivedMessage(id: id, message: message))], "benchmark pipeline is broken")

    let overhead = MessageFrames.framingOverhead(messageLength: size, mtu: mtu, carrier: .write)
    return CodecResult(
        size: size, mtu: mtu, frames: values.count, overheadPercent: 100 * Double(overhead) / Double(size),
        memcpy: seconds / memcpyTime, checksum: seconds / checksumTime, send: seconds / sendTime,
        receive: seconds / receiveTime, pipeline: seconds / pipelineTime)
}

/// SplitMix64, for reproducible benchmark content.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
