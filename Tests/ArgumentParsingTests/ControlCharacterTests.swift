import Testing
@testable import ArgumentParsing

@Suite struct ControlCharacterTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("", ""),
        ("a\nb", "a\\nb"),
        ("a\r\nb\tc", "a\\r\\nb\\tc"),
        ("\u{1B}[31mred", "\\x1B[31mred"),
        ("nul\u{0}", "nul\\x00"),
        ("del\u{7F}", "del\\x7F"),
        ("c1\u{85}\u{9B}", "c1\\x85\\x9B"),
        ("rtl\u{202E}txt.exe", "rtl\\u{202E}txt.exe"),
        ("iso\u{2066}x\u{2069}", "iso\\u{2066}x\\u{2069}"),
        ("marks\u{200E}\u{200F}\u{061C}", "marks\\u{200E}\\u{200F}\\u{061C}"),
        ("lines\u{2028}\u{2029}", "lines\\u{2028}\\u{2029}"),
        ("\\frac{1}{2} stays", "\\frac{1}{2} stays"),
        ("café · 日本 · é́ · 🇫🇷 · \u{A0}\u{2030}\u{2065}", "café · 日本 · é́ · 🇫🇷 · \u{A0}\u{2030}\u{2065}"),
    ])
    func escapes(_ input: String, _ expected: String) {
        #expect(input.escapingControlCharacters() == expected)
        #expect(input[...].escapingControlCharacters() == expected)
    }

    /// Every scalar the fast byte scan lets through is printable, and every one it stops is escaped.
    @Test func byteScanAgreesWithTheScalarRule() {
        let ranges: [ClosedRange<UInt32>] = [0...0x2FF, 0x600...0x6FF, 0x2000...0x20FF, 0xFEFF...0xFEFF]
        for range in ranges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let text = "x" + String(Character(scalar)) + "y"
                let escaped = text.escapingControlCharacters()
                if scalar.controlEscape != nil {
                    #expect(escaped != text, "U+\(String(value, radix: 16)) was not escaped")
                    #expect(!escaped.unicodeScalars.contains(scalar))
                } else {
                    #expect(escaped == text, "U+\(String(value, radix: 16)) was escaped")
                }
            }
        }
    }

    @Test func errorMessagesAreOneLine() async {
        struct Hostile: CommandError {
            var exitCode: ExitCode { .dataError }
            var path: String? { "evil\ndeck: error: forged.sampledeck" }
            var reason: String { "title \u{1B}]0;pwned\u{7}" }
        }
        struct Failing: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "tool")
            func run() throws { throw Hostile() }
        }
        let (terminal, _, errors) = Terminal.capturing()
        let status = await Failing.main([], terminal: terminal)
        #expect(status == .dataError)
        #expect(errors.text == "tool: error: evil\\ndeck: error: forged.sampledeck: title \\x1B]0;pwned\\x07\n")
    }

    @Test func usageErrorsEscapeTheArgument() async {
        struct Tool: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "tool")
            func run() {}
        }
        let (terminal, _, errors) = Terminal.capturing()
        let status = await Tool.main(["--x\ntool: error: forged"], terminal: terminal)
        #expect(status == .usage)
        let first = errors.text.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("tool: error: "))
        #expect(first.contains("\\ntool: error: forged"))
    }
}
