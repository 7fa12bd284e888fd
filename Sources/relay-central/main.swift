#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import RelayProtocol
import Shared

/// relay-central: the article's Apple Watch app (the central) as a Linux program with a REPL.

let version = "relay-central 1.0 (relay wire protocol v\(RelayProtocolVersion.current))"

let launch: CentralLaunch
do {
    launch = try CentralLaunch(parsing: Array(CommandLine.arguments.dropFirst()))
} catch {
    Console.writeAll(fd: 2, "relay-central: \(error)\n\(CentralLaunch.usage)\n")
    exit(64)
}

let options: CentralOptions
switch launch {
case .help:
    Console.writeToStandardOutput(CentralLaunch.usage + "\n" + CentralLaunch.optionHelp + "\n")
    exit(0)
case .version:
    Console.writeToStandardOutput(version + "\n")
    exit(0)
case .run(let chosen):
    options = chosen
}

// One malloc arena for the whole process when notifications come through the AcquireNotify
// socket: its reader thread (NotificationSocket) would otherwise make glibc reserve an arena of
// its own, 64-128 MiB of address space that nothing here needs (two threads, a few hundred
// allocations a second) and that would hide a real over-allocation in VmPeak.
if options.notifyPath == .socket {
    NotificationSocket.useOneMallocArena()
}

let loop = EventLoop()
let console = Console(format: options.json ? .json : .human)
var configuration = REPLConfiguration(programName: "relay-central")
configuration.eventNames = CentralEvent.names
let repl = REPL(configuration: configuration, loop: loop, console: console, prompt: "relay-central [waiting]> ")
let driver = CentralDriver(options: options, loop: loop, console: console)
driver.onChange = { [unowned repl, unowned driver] in
    let prompt = "relay-central [\(driver.session.promptState)]> "
    if repl.prompt != prompt { repl.prompt = prompt }
}
CentralCommands.register(in: repl, driver: driver)
repl.endOfInputHook = { done in driver.whenIdle(done) }
repl.shutdownHook = { done in driver.shutdown(done) }
driver.start()
exit(repl.run())
