import Shared

/// The REPL commands of relay-central (the REPL adds `wait`, `sleep`, `help` and `quit`).
enum CentralCommands {
    static func register(in repl: REPL, driver: CentralDriver) {
        for info in CentralCommand.all {
            let shape: ArgumentShape
            var completion = ArgumentCompletion.none
            var transparent = false
            switch info.name {
            case "scan":
                shape = .words(min: 0, max: 1)
                completion = .words(["stop"])
            case "connect":
                shape = .words(min: 1, max: 1)
                completion = .dynamic { [weak driver] in
                    guard let driver else { return [] }
                    return driver.session.candidates.flatMap { [String($0.index), $0.address.description] }
                }
            case "write": shape = .words(min: 0, max: 1)
            case "send": shape = .restOfLine(required: true)
            case "send-file":
                shape = .restOfLine(required: true)
                completion = .paths
            case "list", "status":
                shape = .none
                transparent = true
            default: shape = .none
            }
            let synopsis = String(info.synopsis.dropFirst(info.name.count).drop { $0 == " " })
            repl.add(CommandSpec(
                info.name, synopsis: info.name == "scan" ? "[stop]" : synopsis, summary: info.summary,
                details: info.details, shape: shape, completion: completion, isTransparentToWait: transparent
            ) { [unowned driver] context in try driver.run(context) })
        }
    }
}
