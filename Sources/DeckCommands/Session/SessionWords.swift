/// Splits a session command line into words the way a shell would: blanks separate words,
/// `'…'` and `"…"` quote (a backslash escapes the next character outside single quotes).
enum SessionWords {
    static func split(_ line: String) throws -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                word.append(character)
                escaped = false
            } else if character == "\\", quote != "'" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if quote != nil { throw SessionUsage("unclosed quote") }
        if escaped { word.append("\\") }
        if inWord { words.append(word) }
        return words
    }
}
