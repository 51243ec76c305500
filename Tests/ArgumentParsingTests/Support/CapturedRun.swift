import ArgumentParsing

/// What one in-process run of the sample tool returned and printed.
struct CapturedRun {
    var status: ExitCode
    var stdout: String
    var stderr: String
}

/// Runs the sample tool in-process with a capturing terminal of the given width.
func run(_ arguments: [String], width: Int = 80, environment: [String: String] = [:]) async -> CapturedRun {
    let (terminal, output, errors) = Terminal.capturing(width: width, environment: environment)
    let status = await SampleDeck.main(arguments, terminal: terminal)
    return CapturedRun(status: status, stdout: output.text, stderr: errors.text)
}
