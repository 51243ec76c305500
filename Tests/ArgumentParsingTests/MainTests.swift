import Foundation
import Testing
@testable import ArgumentParsing

@Suite struct MainTests {
    @Test func resultsOnStdoutMessagesOnStderr() async {
        let result = await run(["export", "French.sampledeck", "-o", "-", "--format", "json"])
        #expect(result.status == .success)
        #expect(result.stdout == "export French.sampledeck -> - as json\n")
        #expect(result.stderr == "exported\n")
    }

    @Test func commandErrorPrintsPathAndReasonWithItsCode() async {
        let result = await run(["export", "missing.sampledeck", "-o", "x"])
        #expect(result.status == .noInput)
        #expect(result.status.rawValue == 66)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "deck: error: missing.sampledeck: no such deck\n")
    }

    @Test func thrownExitCodeExitsQuietly() async {
        let result = await run(["export", "fail", "-o", "x"])
        #expect(result.status == .dataError)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.isEmpty)
    }

    @Test func validationErrorFromRunIsAUsageError() async {
        let result = await run(["export", "late-usage", "-o", "x"])
        #expect(result.status == .usage)
        #expect(result.stderr.hasPrefix("deck: error: the deck name is reserved\nUsage: deck export <deck>"))
        #expect(result.stderr.hasSuffix("See 'deck export --help'.\n"))
    }

    @Test func helpRequestFromRunPrintsHelp() async {
        let result = await run(["export", "help-me", "-o", "x"])
        #expect(result.status == .success)
        #expect(result.stdout == SampleDeck.helpMessage(for: Export.self, columns: 80))
    }

    @Test func otherErrorsFailWithTheirDescription() async {
        let result = await run(["export", "generic", "-o", "x"])
        #expect(result.status == .failure)
        #expect(result.stderr == "deck: error: the cat sat on the keyboard\n")
    }

    @Test func exitCodeValues() {
        let codes: [ExitCode] = [.success, .failure, .usage, .dataError, .noInput, .cantCreate, .ioError]
        #expect(codes.map(\.rawValue) == [0, 1, 64, 65, 66, 73, 74])
        #expect(ExitCode.success.isSuccess && !ExitCode.usage.isSuccess)
    }

    @Test func commandFailureMessage() {
        #expect(CommandFailure(.cantCreate, path: "out.csv", reason: "file exists").message == "out.csv: file exists")
        #expect(CommandFailure(.failure, reason: "nothing to do").message == "nothing to do")
    }

    @Test func unwritableStandardOutputEndsWithIOError() async throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let errors = OutputBuffer()
        let terminal = Terminal(
            stdin: .text(""), stdout: .fileDescriptor(descriptor, name: "standard output", buffered: true),
            stderr: .buffer(errors), environment: [:], width: 80)
        let status = await SampleDeck.main(["create", "d"], terminal: terminal)
        #expect(status == .ioError)
        #expect(errors.text == "deck: error: standard output: No space left on device\n")
    }

    @Test func commandsWriteThroughTheCurrentTerminal() async {
        let (terminal, output, errors) = Terminal.capturing(width: 33)
        let status = await SampleDeck.main(["create", "d", "--title", "T"], terminal: terminal)
        #expect(status == .success)
        #expect(output.text == "created d title=T\n")
        #expect(errors.text.isEmpty)
    }
}
