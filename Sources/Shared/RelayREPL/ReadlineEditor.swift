internal import CReadline
import RelayCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The interactive line editor: GNU readline in callback mode, driven by the event loop.
///
/// The loop calls ``readAvailable()`` when the terminal is readable; a finished line (or
/// end of input) is handed to `onLine`. ``suspend()`` takes the prompt away while a
/// command runs; ``resume()`` shows it again. Readline's own signal handling is off:
/// the REPL forwards SIGINT to ``interrupt()`` and SIGWINCH to ``resize()``.
/// Only one editor can be active per process (readline is global state).
final class ReadlineEditor: LineEditorOutput {
    /// What readline delivers: a line's bytes, or nil for end of input (Ctrl-D).
    var onLine: ([UInt8]?) -> Void = { _ in }
    /// Completion candidates for `word`, given the text before it; nil means file names.
    var completer: (_ lineBeforeWord: String, _ word: String) -> [String]? = { _, _ in [] }
    /// The prompt; changing it redraws the line.
    var prompt: String {
        didSet {
            guard isEditing, prompt != oldValue else { return }
            rl_set_prompt(prompt)
            rl_redisplay()
        }
    }
    package private(set) var isEditing = false
    private let history: HistoryFile?
    private let outputFD: Int32
    private var streams: (UnsafeMutablePointer<FILE>?, UnsafeMutablePointer<FILE>?) = (nil, nil)

    nonisolated(unsafe) fileprivate static var current: ReadlineEditor?
    nonisolated(unsafe) fileprivate static var candidates: [String] = []

    init(programName: String, prompt: String, history: HistoryFile?, inputFD: Int32 = 0, outputFD: Int32 = 1) {
        self.prompt = prompt
        self.history = history
        self.outputFD = outputFD
        relay_rl_configure(strdup(programName), attemptCompletion)
        if inputFD != 0 || outputFD != 1 {
            streams = (fdopen(dup(inputFD), "r"), fdopen(dup(outputFD), "w"))
        }
        relay_rl_set_streams(streams.0, streams.1)
        using_history()
        history?.load()
        ReadlineEditor.current = self
    }

    /// Shows the prompt and starts accepting keystrokes.
    func resume() {
        guard !isEditing else { return }
        isEditing = true
        rl_callback_handler_install(prompt, lineHandler)
    }

    /// Removes the prompt (the typed text stays on screen) and restores the terminal.
    func suspend() {
        guard isEditing else { return }
        isEditing = false
        rl_callback_handler_remove()
    }

    /// Stops editing for good (shutdown): leaves the typed text on screen and moves to a new line.
    func abandonLine() {
        guard isEditing else { return }
        suspend()
        Console.writeAll(fd: outputFD, "\n")
    }

    /// Lets readline consume the available keystroke(s).
    func readAvailable() {
        guard isEditing else { return }
        rl_callback_read_char()
    }

    /// Ctrl-C at the prompt: abandon the typed line and show a fresh prompt.
    func interrupt() {
        guard isEditing else { return }
        rl_callback_sigcleanup()
        rl_replace_line("", 0)
        relay_rl_set_point(0)
        Console.writeAll(fd: outputFD, "^C\n")
        rl_on_new_line()
        rl_redisplay()
    }

    /// The terminal changed size.
    func resize() {
        if isEditing { rl_resize_terminal() }
    }

    /// Remembers a line in the history (consecutive duplicates and blank lines are skipped).
    func remember(_ text: String) {
        var line = Substring(text)
        while let last = line.last, last == " " || last == "\t" { line.removeLast() }
        guard !line.allSatisfy({ $0 == " " || $0 == "\t" }) else { return }
        if let last = relay_history_last(), String(cString: last) == line { return }
        add_history(String(line))
    }

    /// Stops editing and saves the history.
    func close() {
        suspend()
        history?.save()
        relay_rl_set_streams(nil, nil)
        if let input = streams.0 { fclose(input) }
        if let output = streams.1 { fclose(output) }
        streams = (nil, nil)
        if ReadlineEditor.current === self { ReadlineEditor.current = nil }
    }

    package func printAbove(_ text: String, using output: (String) -> Void) {
        let savedPoint = relay_rl_point()
        let savedLine = rl_copy_text(0, relay_rl_end())
        rl_save_prompt()
        rl_replace_line("", 0)
        rl_redisplay()
        output(text)
        rl_restore_prompt()
        rl_replace_line(savedLine ?? strdup(""), 0)
        relay_rl_set_point(savedPoint)
        rl_forced_update_display()
        free(savedLine)
    }

    fileprivate func deliver(_ pointer: UnsafeMutablePointer<CChar>?) {
        // Readline calls this from inside rl_callback_read_char; take the prompt away
        // first so readline does not print a new one, then hand the line on.
        suspend()
        guard let pointer else {
            Console.writeAll(fd: outputFD, "\n")
            onLine(nil)
            return
        }
        let length = strlen(pointer)
        let bytes = [UInt8](UnsafeRawBufferPointer(start: pointer, count: length))
        free(pointer)
        onLine(bytes)
    }
}

/// Readline's line callback (a C function: it reaches the editor through a global).
private func lineHandler(_ line: UnsafeMutablePointer<CChar>?) {
    if let editor = ReadlineEditor.current {
        editor.deliver(line)
    } else {
        free(line)
    }
}

/// Readline's completion hook: command names, then each command's argument words.
private func attemptCompletion(
    _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
)
    -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
{
    guard let editor = ReadlineEditor.current, let text, let buffer = relay_rl_line_buffer() else { return nil }
    let before = String(decoding: UnsafeRawBufferPointer(start: buffer, count: Int(max(0, start))), as: UTF8.self)
    guard let words = editor.completer(before, String(cString: text)) else {
        return nil  // readline completes file names
    }
    relay_rl_completion_over()
    guard !words.isEmpty else { return nil }
    ReadlineEditor.candidates = words
    return rl_completion_matches(text, completionGenerator)
}

/// Hands readline one candidate per call (state 0 restarts), as malloc'ed strings.
private func completionGenerator(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<CChar>? {
    let index = Int(state)
    guard index < ReadlineEditor.candidates.count else { return nil }
    return strdup(ReadlineEditor.candidates[index])
}
