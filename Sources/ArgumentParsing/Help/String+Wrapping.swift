// Word wrapping for help text.

/// A block of help or manual text: prose to re-flow, or lines to keep as they are.
enum TextBlock: Equatable {
    case prose(String)
    case preformatted([String])

    /// Splits text into blocks at blank lines; a block whose lines start with a space is
    /// preformatted (an example, a table), any other is prose.
    static func blocks(of text: String) -> [TextBlock] {
        var blocks: [TextBlock] = []
        var current: [Substring] = []
        func close() {
            guard !current.isEmpty else { return }
            if current.contains(where: { $0.first == " " }) {
                blocks.append(.preformatted(current.map(String.init)))
            } else {
                blocks.append(.prose(current.map { $0.trimmingSpaces }.joined(separator: " ")))
            }
            current = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) { close() } else { current.append(line) }
        }
        close()
        return blocks
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

extension String {
    /// The words of the text greedily packed into lines of at most `width` columns; a word
    /// longer than the width gets a line of its own.
    func wrapped(to width: Int) -> [String] {
        Self.pack(split(whereSeparator: \.isWhitespace).map(String.init), width: width, separator: " ")
    }

    /// Packs unbreakable pieces into lines of at most `width` columns.
    static func pack(_ pieces: [String], width: Int, separator: String) -> [String] {
        var lines: [String] = []
        var line = ""
        for piece in pieces {
            if line.isEmpty {
                line = piece
            } else if line.count + separator.count + piece.count <= width {
                line += separator + piece
            } else {
                lines.append(line)
                line = piece
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Wraps text of several blocks to `width` columns after `indent` spaces; blocks are
    /// separated by a blank line and preformatted lines are only indented.
    func formatted(width: Int, indent: Int = 0) -> String {
        let margin = String(repeating: " ", count: indent)
        let available = max(width - indent, 20)
        return TextBlock.blocks(of: self).map { block in
            switch block {
            case .prose(let text): text.wrapped(to: available).map { margin + $0 }.joined(separator: "\n")
            case .preformatted(let lines): lines.map { margin + $0 }.joined(separator: "\n")
            }
        }.joined(separator: "\n\n")
    }
}
