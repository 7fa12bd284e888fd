import Glibc
import RelayProtocol

func sizeLabel(_ size: Int) -> String {
    size >= 1 << 20 ? "\(size >> 20) MiB" : "\(size >> 10) KiB"
}

private func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
    } else if digits > 0 {
        text += "." + String(repeating: "0", count: digits)
    }
    return text
}

private func gigabytes(_ bytesPerSecond: Double) -> String { fixed(bytesPerSecond / 1e9, 2) }
private func percent(_ ratio: Double) -> String { String(Int((ratio * 100).rounded())) + " %" }

/// The results as a Markdown table (GB/s are 10^9 bytes of message per second).
func renderTable(_ results: [CodecResult]) -> String {
    var lines = [
        "| size | MTU | frames | framing overhead | memcpy GB/s | CRC-32C GB/s | chunk GB/s | reassemble GB/s | chunk+reassemble GB/s | chunk / CRC | reassemble / CRC | chunk+reassemble / CRC | chunk+reassemble / 2 CRC passes |",
        "|------|-----|--------|------------------|-------------|--------------|------------|-----------------|-----------------------|-------------|------------------|------------------------|---------------------------------|",
    ]
    for result in results {
        let cells = [
            sizeLabel(result.size), String(result.mtu.value), String(result.frames),
            fixed(result.overheadPercent, 2) + " %", gigabytes(result.memcpy), gigabytes(result.checksum),
            gigabytes(result.send), gigabytes(result.receive), gigabytes(result.pipeline),
            percent(result.sendRatio), percent(result.receiveRatio), percent(result.pipelineRatio),
            percent(result.pipelineTwoPassRatio),
        ]
        lines.append("| " + cells.joined(separator: " | ") + " |")
    }
    return lines.joined(separator: "\n")
}

/// The goal check at 64 KiB / MTU 517.
func renderVerdict(_ results: [CodecResult]) -> String {
    guard let goal = results.first(where: { $0.size == 64 << 10 && $0.mtu.value == 517 }) else { return "" }
    func mark(_ ok: Bool) -> String { ok ? "met" : "NOT met" }
    return """
        Goals at 64 KiB / MTU 517:
        - CRC-32C >= 1 GB/s: \(gigabytes(goal.checksum)) GB/s: \(mark(goal.checksum >= 1e9)).
        - chunk+reassemble >= 80 % of checksum-alone, compared with the checksum work it contains: chunk \
        \(percent(goal.sendRatio)) and reassemble \(percent(goal.receiveRatio)) of one CRC pass each, \
        chunk+reassemble \(percent(goal.pipelineTwoPassRatio)) of two CRC passes: \
        \(mark(goal.sendRatio >= 0.8 && goal.receiveRatio >= 0.8 && goal.pipelineTwoPassRatio >= 0.8)).
        - for the record, chunk+reassemble against a single CRC pass: \(percent(goal.pipelineRatio)) (at most 50 % \
        is possible: the pipeline computes the CRC once on each side).
        """
}

/// CPU model, for the record.
func machineDescription() -> String {
    guard let file = fopen("/proc/cpuinfo", "r") else { return "unknown CPU" }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 512)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("model name"), let colon = text.firstIndex(of: ":") {
            return text[text.index(after: colon)...].trimmingCharacters(in: " \n\t")
        }
    }
    return "unknown CPU"
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

struct BenchmarkFileError: Error, CustomStringConvertible {
    var description: String
}

/// Replaces the section between the codec-bench markers of `path` (appends it when absent),
/// keeping the rest of the file.
func writeSection(table: String, verdict: String, machine: String, to path: String) throws {
    let begin = "<!-- codec-bench:begin -->"
    let end = "<!-- codec-bench:end -->"
    let section = """
        \(begin)
        Measured by `swift run -c release relay-codec-bench --markdown docs/performance.md` (`make bench-codec` prints the same table) \
        on \(machine), all in one run. Throughput is message bytes per second (GB = 10^9 bytes), median of \(benchmarkRepetitions) \
        repetitions, wall clock (CLOCK_MONOTONIC). Repetitions during which the benchmark thread lost its CPU to other \
        processes (wall clock > 1.05 x thread CPU time) were discarded and repeated: \(discardedRepetitions) of \
        \(totalRepetitions) in this run.

        \(table)

        \(verdict)
        \(end)
        """
    let existing = readFile(path) ?? "# Performance\n"
    var updated: String
    if let beginRange = existing.firstRange(of: begin), let endRange = existing.firstRange(of: end),
        beginRange.lowerBound < endRange.lowerBound
    {
        updated = String(existing[..<beginRange.lowerBound]) + section + String(existing[endRange.upperBound...])
    } else {
        let separator = existing.hasSuffix("\n\n") ? "" : existing.hasSuffix("\n") ? "\n" : "\n\n"
        updated = existing + separator + section + "\n"
    }
    guard let file = fopen(path, "w") else { throw BenchmarkFileError(description: "cannot write \(path)") }
    defer { fclose(file) }
    if fputs(updated, file) < 0 { throw BenchmarkFileError(description: "cannot write \(path)") }
}

private func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
