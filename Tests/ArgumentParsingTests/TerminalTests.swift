import Foundation
import Testing
@testable import ArgumentParsing

@Suite struct TerminalWidthTests {
    @Test func columnsVariableWins() {
        #expect(Terminal.detectWidth(environment: ["COLUMNS": "132"]) == 132)
    }

    @Test(arguments: [[:], ["COLUMNS": "wide"], ["COLUMNS": "0"], ["COLUMNS": "-5"]])
    func fallsBackTo80WithoutATerminal(_ environment: [String: String]) throws {
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        defer { descriptors.forEach { close($0) } }
        #expect(Terminal.columns(ofFileDescriptor: descriptors[1]) == nil)
        #expect(Terminal.detectWidth(environment: environment, fileDescriptor: descriptors[1]) == 80)
    }
}

@Suite struct ColorTests {
    @Test(arguments: [
        (["TERM": "xterm"], true, true),
        (["NO_COLOR": "1"], true, false),
        (["NO_COLOR": ""], true, true),
        (["TERM": "dumb"], true, false),
        ([:], false, false),
    ])
    func allowsColor(environment: [String: String], isTerminal: Bool, expected: Bool) {
        let terminal = Terminal.capturing(environment: environment, isTerminal: isTerminal).terminal
        #expect(terminal.allowsColor(on: terminal.stderr) == expected)
    }
}

@Suite struct ProgressBarTests {
    @Test func silentWhenStandardErrorIsNotATerminal() {
        let (terminal, output, errors) = Terminal.capturing(isTerminal: false)
        let progress = ProgressBar(total: 10, label: "Converting", terminal: terminal, minimumInterval: .zero)
        #expect(!progress.isActive)
        progress.advance(by: 5)
        progress.finish()
        #expect(errors.bytes.isEmpty)
        #expect(output.bytes.isEmpty)
    }

    @Test func silentWhenDisabled() {
        let (terminal, _, errors) = Terminal.capturing(isTerminal: true)
        let progress = ProgressBar(total: 10, terminal: terminal, isEnabled: false, minimumInterval: .zero)
        progress.update(completed: 3)
        #expect(errors.bytes.isEmpty)
    }

    @Test func drawsOnStandardErrorOfATerminal() {
        let (terminal, output, errors) = Terminal.capturing(width: 60, environment: ["NO_COLOR": "1"], isTerminal: true)
        let progress = ProgressBar(total: 4, label: "Converting", terminal: terminal, minimumInterval: .zero)
        progress.advance()
        progress.advance()
        #expect(output.bytes.isEmpty)
        let frames = errors.text.split(separator: "\r")
        #expect(frames.count == 2)
        #expect(frames.last?.hasPrefix("Converting [") == true)
        #expect(frames.last?.contains("] 50% 2/4") == true)
        #expect(frames.allSatisfy { $0.count == 59 })
        #expect(!errors.text.contains("\u{1B}"))
        progress.finish()
        #expect(errors.text.hasSuffix("\r" + String(repeating: " ", count: 59) + "\r"))
        progress.advance()
        #expect(errors.text.hasSuffix("\r"), "no drawing after finish")
    }

    @Test func colourOnlyWhenAllowed() {
        let (terminal, _, errors) = Terminal.capturing(environment: ["TERM": "xterm"], isTerminal: true)
        ProgressBar(total: 2, terminal: terminal, minimumInterval: .zero).advance()
        #expect(errors.text.contains("\u{1B}[32m"))
    }

    @Test func throttlesRedrawsButShowsCompletion() {
        let (terminal, _, errors) = Terminal.capturing(environment: ["NO_COLOR": "1"], isTerminal: true)
        let progress = ProgressBar(total: 100, terminal: terminal, minimumInterval: .seconds(3600))
        for _ in 1...99 { progress.advance() }
        #expect(errors.text.split(separator: "\r").count == 1, "only the first update is drawn")
        progress.advance()
        #expect(errors.text.split(separator: "\r").last?.contains("100% 100/100") == true)
    }

    @Test func unknownTotalShowsACount() {
        let (terminal, _, errors) = Terminal.capturing(environment: ["NO_COLOR": "1"], isTerminal: true)
        ProgressBar(total: nil, label: "Reading", terminal: terminal, minimumInterval: .zero).update(completed: 1234)
        #expect(errors.text.hasPrefix("\rReading 1234 "))
    }

    @Test func namesItsUnitAndShowsRateAndTimeLeftAfterASecond() {
        let (terminal, _, _) = Terminal.capturing(width: 100, environment: ["NO_COLOR": "1"], isTerminal: true)
        let files = ProgressBar(total: 40, label: "Converting", unit: .count("file", "files"), terminal: terminal)
        #expect(files.render(completed: 10).contains("] 25% 10/40 files "))
        #expect(!files.render(completed: 10, elapsed: .milliseconds(900)).contains("/s"), "no rate before a second")
        let later = files.render(completed: 10, elapsed: .seconds(2))
        #expect(later.contains("25% 10/40 files 5.0 files/s 6s left"), "\(later)")
        #expect(!files.render(completed: 40, elapsed: .seconds(8)).contains("left"), "nothing left when done")

        let bytes = ProgressBar(total: 26 << 20, label: "Importing", unit: .bytes, terminal: terminal)
        let line = bytes.render(completed: 10 << 20, elapsed: .seconds(4))
        #expect(line.contains("] 38% 10.0/26.0 MiB 2.5 MiB/s 6s left"), "\(line)")
        #expect(bytes.render(completed: 0).contains("0% 0.0/26.0 MiB"))
        #expect(ProgressBar(total: 512, unit: .bytes, terminal: terminal).render(completed: 100).contains("100/512 B"))
        #expect(ProgressBar(total: nil, unit: .bytes, terminal: terminal).render(completed: 3 << 30, elapsed: .seconds(3))
            .hasPrefix("3.0 GiB 1.0 GiB/s"))
        #expect(ProgressBar(total: 1, unit: .count("file", "files"), terminal: terminal).render(completed: 0).contains("0/1 file "))
    }

    @Test func aNarrowTerminalKeepsTheBarAndDropsTheRate() {
        let (terminal, _, _) = Terminal.capturing(width: 40, environment: ["NO_COLOR": "1"], isTerminal: true)
        let line = ProgressBar(total: 26 << 20, label: "Importing", unit: .bytes, terminal: terminal)
            .render(completed: 10 << 20, elapsed: .seconds(4))
        #expect(line.contains("["), "\(line)")
        #expect(!line.contains("/s"), "\(line)")
        #expect(line.count == 39)
    }

    @Test(arguments: [(0.4, "<1s"), (42, "42s"), (185, "3m 05s"), (7620, "2h 07m"), (.infinity, "?")])
    func timeLeftReadsAsAPersonWouldSayIt(_ seconds: Double, _ expected: String) {
        #expect(ProgressBar.duration(seconds) == expected)
    }

    @Test func safeFromConcurrentTasks() async {
        let (terminal, _, errors) = Terminal.capturing(environment: ["NO_COLOR": "1"], isTerminal: true)
        let progress = ProgressBar(total: 400, terminal: terminal, minimumInterval: .seconds(3600))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<100 { progress.advance() } }
            }
        }
        #expect(errors.text.contains("100% 400/400"))
    }
}

@Suite struct StreamTests {
    @Test func readLinesWithEitherLineBreak() throws {
        let input = InputReader.text("front,back\r\nchat,cat\nlast")
        #expect(try input.readLine() == "front,back")
        #expect(try input.readLine() == "chat,cat")
        #expect(try input.readLine() == "last")
        #expect(try input.readLine() == nil)
    }

    @Test func readAllFromAPipe() throws {
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        let payload = Array("line one\nline two\n".utf8)
        _ = payload.withUnsafeBytes { write(descriptors[1], $0.baseAddress, $0.count) }
        close(descriptors[1])
        defer { close(descriptors[0]) }
        let input = InputReader.fileDescriptor(descriptors[0], name: "standard input")
        #expect(try input.readLine() == "line one")
        #expect(try input.readAll() == Array("line two\n".utf8))
        #expect(try input.readAll().isEmpty)
    }

    @Test func writerSupportsPrintAndBytes() throws {
        let buffer = OutputBuffer()
        var writer = OutputWriter.buffer(buffer)
        print("a", 1, to: &writer)
        try writer.write(contentsOf: [0xE2, 0x9C, 0x93])
        #expect(buffer.text == "a 1\n✓")
        buffer.removeAll()
        #expect(buffer.bytes.isEmpty)
    }

    @Test func bufferedDescriptorWritesOnFlush() throws {
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        defer { descriptors.forEach { close($0) } }
        let writer = OutputWriter.fileDescriptor(descriptors[1], name: "pipe", buffered: true)
        writer.write("hello")
        var flags = fcntl(descriptors[0], F_GETFL)
        flags |= O_NONBLOCK
        _ = fcntl(descriptors[0], F_SETFL, flags)
        var byte: UInt8 = 0
        #expect(read(descriptors[0], &byte, 1) == -1, "nothing written before flush")
        try writer.flush()
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { read(descriptors[0], $0.baseAddress, $0.count) }
        #expect(String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self) == "hello")
    }

    @Test func writeErrorsAreReported() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let writer = OutputWriter.fileDescriptor(descriptor, name: "standard output")
        #expect(throws: StreamError(stream: "standard output", code: ENOSPC)) {
            try writer.write(contentsOf: Array("x".utf8))
        }
        let error = StreamError(stream: "standard output", code: ENOSPC)
        #expect(error.exitCode == .ioError)
        #expect(error.message == "standard output: No space left on device")
    }
}
