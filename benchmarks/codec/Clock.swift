import Glibc

/// Monotonic wall-clock time in nanoseconds (clock_gettime(CLOCK_MONOTONIC)).
func monotonicNanoseconds() -> UInt64 {
    nanoseconds(CLOCK_MONOTONIC)
}

/// CPU time of the calling thread in nanoseconds, used only to detect descheduled repetitions.
func threadCPUNanoseconds() -> UInt64 {
    nanoseconds(CLOCK_THREAD_CPUTIME_ID)
}

private func nanoseconds(_ clock: clockid_t) -> UInt64 {
    var time = timespec()
    clock_gettime(clock, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Repetitions per measurement (the median is reported).
let benchmarkRepetitions = 21

/// Keeps results alive so the optimizer cannot drop the measured work.
nonisolated(unsafe) var sink: UInt64 = 0

/// Repetitions thrown away because the thread lost its CPU during them, and all repetitions run.
nonisolated(unsafe) var discardedRepetitions = 0
nonisolated(unsafe) var totalRepetitions = 0

/// Measures several bodies interleaved and returns, for each, the median wall-clock seconds per run.
///
/// Each body's run count per repetition is calibrated so a repetition takes at least
/// `minimumSeconds`. The bodies are then measured in rounds (one repetition of each body per
/// round), so that slow changes of the machine's state (other processes, the sibling hyperthread,
/// clock frequency) affect all of them alike and their ratios stay meaningful.
/// Other processes share this machine's CPUs, so a repetition during which the thread was
/// descheduled (wall clock more than 5 % above the thread's CPU time) measures the waiting, not
/// the code: it is discarded and repeated (at most `maximumAttempts` times, after which the least
/// disturbed attempt is kept).
func medianSecondsPerRun(
    repetitions: Int = benchmarkRepetitions, minimumSeconds: Double = 0.0005, maximumAttempts: Int = 50,
    _ bodies: [() -> Void]
) -> [Double] {
    let runs = bodies.map { body in
        var runs = 1
        while true {
            let elapsed = time(runs, body).wall
            if elapsed >= minimumSeconds { return runs }
            runs *= elapsed < minimumSeconds / 8 ? 8 : 2
        }
    }
    var samples = [[Double]](repeating: [], count: bodies.count)
    for _ in 0..<repetitions {
        for (index, body) in bodies.enumerated() {
            // The least disturbed attempt is kept if none ran undisturbed.
            var best: (wall: Double, cpu: Double)?
            for _ in 1...maximumAttempts {
                let sample = time(runs[index], body)
                totalRepetitions += 1
                if best == nil || sample.wall - sample.cpu < best!.wall - best!.cpu { best = sample }
                if sample.wall <= sample.cpu * 1.05 + 20e-6 { break }
                discardedRepetitions += 1
            }
            samples[index].append(best!.wall / Double(runs[index]))
        }
    }
    return samples.map { list in list.sorted()[list.count / 2] }
}

private func time(_ runs: Int, _ body: () -> Void) -> (wall: Double, cpu: Double) {
    let cpuStart = threadCPUNanoseconds()
    let start = monotonicNanoseconds()
    for _ in 0..<runs { body() }
    let wall = Double(monotonicNanoseconds() - start) / 1e9
    return (wall, Double(threadCPUNanoseconds() - cpuStart) / 1e9)
}

/// Writes a line to standard error.
func printError(_ text: String) {
    _ = text.withCString { write(2, $0, strlen($0)) }
    _ = write(2, "\n", 1)
}
