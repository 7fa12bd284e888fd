import RelayApp
import RelayBlueZ
import RelayCLI
import RelayREPL
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// relay-central: the article's Apple Watch app (the central) as a Linux program with a REPL.

let options: CentralOptions
do {
    switch try CentralOptions.parse(Array(CommandLine.arguments.dropFirst())) {
    case .print(let text):
        Console.writeToStandardOutput(text + "\n")
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    CentralOptions.parser.exitWithUsageError(error)
}
if options.common.check { exit(SetupCheck.runProgram(role: .central, options: options.common)) }

// One malloc arena for the whole process when notifications come through the AcquireNotify
// socket: its reader thread (NotificationSocket) would otherwise make glibc reserve an arena of
// its own, 64-128 MiB of address space that nothing here needs (two threads, a few hundred
// allocations a second) and that would hide a real over-allocation in VmPeak.
if options.common.notifyPath == .socket {
    NotificationSocket.useOneMallocArena()
}

let loop = EventLoop()
let console = Console(format: options.common.json ? .json : .human)
var configuration = REPLConfiguration(programName: "relay-central")
configuration.eventNames = CentralEvent.names
let driver = CentralDriver(settings: CentralSettings(options: options), loop: loop, console: console)
let repl = REPL(configuration: configuration, loop: loop, console: console, prompt: driver.prompt)
for spec in CentralCommands.specs(driver: driver) { repl.add(spec) }
driver.onPromptChange = { [unowned repl] in repl.prompt = $0 }
driver.onDeliveryFailure = { [unowned repl] in repl.noteFailure() }
repl.endOfInputHook = { done in driver.whenIdle(done) }
repl.shutdownHook = { done in driver.shutdown(done) }

let backend = BlueZCentralBackend(driver: driver, loop: loop, adapter: options.common.adapter)
driver.performer = CentralPerformer(driver: driver, backend: backend)
backend.start()
exit(repl.run())
