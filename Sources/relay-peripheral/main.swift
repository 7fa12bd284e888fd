import RelayApp
import RelayCLI
import RelayREPL
import RelayRuntime

#if canImport(Glibc)
    import Glibc
#endif

// relay-peripheral: the article's iPhone app as a Linux program with a REPL (see docs/cli.md).

/// Everything lives in this function's scope, not in globals: nothing here is shared across
/// threads, and the program does not need the Concurrency runtime (see Package.swift).
func runPeripheral() -> Int32 {
    StartupTrace.mark("main entered")

    let options: PeripheralOptions
    do {
        switch try PeripheralOptions.parse(Array(CommandLine.arguments.dropFirst())) {
        case .print(let text):
            Console.writeAll(fd: 1, text + "\n")
            exit(0)
        case .run(let parsed):
            options = parsed
        }
    } catch {
        PeripheralOptions.parser.exitWithUsageError(error)
    }
    if options.common.check {
        return SetupCheck.runProgram(
            role: .peripheral(secure: options.secure, interval: options.advertisingInterval), options: options.common)
    }

    let loop = EventLoop()
    let console = Console(format: options.common.json ? .json : .human)
    var replConfiguration = REPLConfiguration(programName: "relay-peripheral")
    replConfiguration.eventNames = PeripheralEvent.names
    let repl = REPL(configuration: replConfiguration, loop: loop, console: console)

    let settings = PeripheralSettings(options: options)
    let driver = PeripheralDriver(settings: settings, loop: loop, console: console)
    repl.prompt = driver.prompt
    for spec in PeripheralCommands.specs(driver: driver) { repl.add(spec) }
    driver.onPromptChange = { [unowned repl] in repl.prompt = $0 }
    driver.onDeliveryFailure = { [unowned repl] in repl.noteFailure() }
    driver.onReport = { event in
        if case .advertising = event { StartupTrace.once("advertising printed") }
    }
    repl.endOfInputHook = { done in driver.whenIdle(done) }
    repl.shutdownHook = { done in driver.shutdown(done) }

    let backend = BlueZPeripheralBackend(
        driver: driver, loop: loop, settings: settings, adapter: options.common.adapter,
        notifyPath: options.common.notifyPath)
    driver.performer = PeripheralPerformer(driver: driver, backend: backend)
    StartupTrace.mark("REPL and driver made")
    // Connect on the loop's first turn: the REPL's input is watched by then (and served first
    // in a turn), so a `start` typed at launch is read before bluetoothd's first answers and
    // the registrations go out as soon as the adapter is known.
    loop.post {
        if let page = BrowserPage.located() { console.report(PeripheralEvent.page(path: page)) }
        backend.start()
        StartupTrace.mark("backend started")
    }
    return repl.run()
}

exit(runPeripheral())
