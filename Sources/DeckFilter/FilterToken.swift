/// A token of the filter language, with where it stands in the text.
struct FilterToken: Equatable {
    enum Kind: Equatable {
        /// A run of word characters: a keyword, a field, a bare value, a number or a date.
        case word(String)
        /// A double-quoted string, unescaped.
        case string(String)
        /// `=`, `==`, `!=`, `<`, `<=`, `>`, `>=`.
        case symbol(FilterOperator)
        case openParenthesis
        case closeParenthesis
        case comma
        case end
    }

    var kind: Kind
    /// 1-based line.
    var line: Int
    /// 1-based column of the first character.
    var column: Int
    /// 1-based column just past the last character.
    var endColumn: Int
    /// The text as written.
    var text: String

    /// The lowercase word, if the token is a word.
    var keyword: String? {
        if case .word(let word) = kind { return word.lowercased() }
        return nil
    }

    /// How the token reads in a message: `'contains'`, `'('`, `the end of the filter`.
    var quotedForMessage: String {
        kind == .end ? "the end of the filter" : "'\(text)'"
    }
}
