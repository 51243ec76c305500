/// Builds mdoc source line by line, escaping text so that nothing a command's help says
/// can be read as a roff request or macro.
struct MdocWriter {
    private(set) var lines: [String] = []

    /// The macros mdoc would call if they appeared as a word on a macro line.
    private static let callableMacros: Set<String> = [
        "Ac", "Ad", "An", "Ao", "Ap", "Aq", "Ar", "At", "Bc", "Bo", "Bq", "Brc", "Bro", "Brq", "Bsx", "Bx",
        "Cd", "Cm", "Dc", "Do", "Dq", "Dv", "Dx", "Ec", "Em", "En", "Eo", "Er", "Es", "Ev", "Fa", "Fc",
        "Fl", "Fn", "Fo", "Fr", "Ft", "Fx", "Ic", "In", "Lb", "Li", "Lk", "Ms", "Mt", "Nm", "No", "Ns",
        "Nx", "Oc", "Oo", "Op", "Ox", "Pa", "Pc", "Pf", "Po", "Pq", "Qc", "Ql", "Qo", "Qq", "Sc", "So",
        "Sq", "St", "Sx", "Sy", "Ta", "Tn", "Ux", "Va", "Vt", "Xc", "Xo", "Xr",
    ]
    private static let delimiters: Set<String> = ["(", ")", "[", "]", ".", ",", ":", ";", "!", "?", "|"]

    /// A raw line, already valid mdoc.
    mutating func raw(_ line: String) {
        lines.append(line)
    }

    /// A macro line: `.Name arg arg`; each argument is escaped and quoted as needed.
    mutating func macro(_ name: String, _ arguments: String...) {
        macro(name, arguments: arguments)
    }

    mutating func macro(_ name: String, arguments: [String]) {
        lines.append((["." + name] + arguments.map(Self.argument)).joined(separator: " "))
    }

    /// A macro line built from words, such as `.Op Fl -format Ar format`; the first word
    /// must be a macro.
    mutating func line(_ words: [MdocWord]) {
        let rendered = words.enumerated().map { index, word in
            switch word {
            case .macro(let name): index == 0 ? "." + name : name
            case .argument(let text): Self.argument(text)
            case .delimiter(let text): text
            }
        }
        lines.append(rendered.joined(separator: " "))
    }

    /// Prose: paragraphs separated by `.Pp`, one sentence per line; indented blocks become
    /// literal displays.
    mutating func prose(_ text: String) {
        for (index, block) in TextBlock.blocks(of: text).enumerated() {
            switch block {
            case .prose(let paragraph):
                if index > 0 { lines.append(".Pp") }
                lines += Self.sentences(of: paragraph).map(Self.textLine)
            case .preformatted(let rows):
                let indentation = rows.map { $0.prefix { $0 == " " }.count }.min() ?? 0
                lines.append(".Bd -literal -offset indent")
                lines += rows.map { Self.literalLine(String($0.dropFirst(indentation))) }
                lines.append(".Ed")
            }
        }
    }

    /// A literal display of lines (examples).
    mutating func literal(_ rows: [String]) {
        lines.append(".Bd -literal -offset indent")
        lines += rows.map(Self.literalLine)
        lines.append(".Ed")
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    // MARK: - Escaping

    /// A macro argument: backslashes escaped, quoted when it holds spaces, protected with
    /// `\&` when it would read as a macro or a delimiter.
    static func argument(_ text: String) -> String {
        var escaped = escapeBackslashes(text)
        if callableMacros.contains(escaped) || delimiters.contains(escaped) || escaped.isEmpty {
            escaped = "\\&" + escaped
        }
        if escaped.contains(" ") || escaped.contains("\t") || escaped.contains("\"") {
            return "\"" + escaped.replacing("\"", with: "\\(dq") + "\""
        }
        return escaped
    }

    /// A line of running text: a leading `.` or `'` would start a request, so it is
    /// protected, and dashes that start a word are typed as minus signs (options stay
    /// copyable).
    static func textLine(_ text: String) -> String {
        let escaped = escapeLeadingDashes(escapeBackslashes(text.trimmingSpaces))
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { return "\\&" + escaped }
        return escaped
    }

    /// A line of a literal display: every dash is a minus sign.
    static func literalLine(_ text: String) -> String {
        let escaped = escapeBackslashes(text).replacing("-", with: "\\-")
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { return "\\&" + escaped }
        return escaped.isEmpty ? "\\&" : escaped
    }

    private static func escapeBackslashes(_ text: String) -> String {
        text.replacing("\\", with: "\\e")
    }

    private static func escapeLeadingDashes(_ text: String) -> String {
        var result = ""
        var previous: Character = " "
        for character in text {
            if character == "-", previous == " " || previous == "-" || previous == "(" || previous == "'" {
                result += "\\-"
                previous = "-"
            } else {
                result.append(character)
                previous = character
            }
        }
        return result
    }

    /// Splits a paragraph after sentence-ending punctuation followed by a space and a capital.
    static func sentences(of paragraph: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        let characters = Array(paragraph)
        for (index, character) in characters.enumerated() {
            current.append(character)
            let endsSentence = character == "." || character == "?" || character == "!"
            if endsSentence, index + 2 < characters.count, characters[index + 1] == " ",
               characters[index + 2].isUppercase {
                sentences.append(current)
                current = ""
            }
        }
        if !current.trimmingSpaces.isEmpty { sentences.append(current) }
        return sentences.map(\.trimmingSpaces)
    }
}

/// A word of a macro line: a macro name, an argument (escaped), or punctuation that mdoc
/// attaches to the previous word.
enum MdocWord: Equatable {
    case macro(String)
    case argument(String)
    case delimiter(String)
}
