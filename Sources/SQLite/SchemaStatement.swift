/// A schema statement (the `sql` of a `sqlite_schema` row) as the tokens SQLite reads from
/// it, so that two statements can be compared without their whitespace or their style of
/// quoting an identifier mattering: `"Card"`, `[Card]` and `` `Card` `` are one token.
///
/// Made for checking an untrusted store against a layout: anything the tokenizer is not
/// sure it reads as SQLite does (a comment, a parameter, a character SQLite rejects, an
/// unterminated literal) makes ``init(_:)`` fail, and the caller refuses the statement.
/// SQLite itself never writes comments into statements a program did not write, so a store
/// of the layout's never holds one.
public struct SchemaStatement: Equatable, Sendable, CustomStringConvertible {
    public enum Token: Hashable, Sendable {
        /// A bare word (a keyword or an unquoted name), upper-cased (ASCII).
        case word(String)
        /// A quoted name (`"x"`, `[x]`, `` `x` ``), unescaped.
        case name(String)
        /// A string literal (`'x'`), unescaped.
        case string(String)
        /// A numeric literal as written.
        case number(String)
        /// A blob literal (`X'00ff'`), the hex digits upper-cased.
        case blob(String)
        /// An operator or punctuation: `(`, `)`, `,`, `||`, `<=`, …
        case symbol(String)
    }

    public private(set) var tokens: [Token]

    /// Nil when `sql` holds a comment, a parameter, an unterminated literal or a character
    /// SQLite does not accept outside a literal.
    public init?(_ sql: String) {
        guard let tokens = Self.tokenize(Array(sql.utf8)) else { return nil }
        self.tokens = tokens
    }

    public init(tokens: [Token]) { self.tokens = tokens }

    /// The statement without the constant defaults of its columns: `DEFAULT` followed by a
    /// number (optionally negative), a string or a blob literal. `ALTER TABLE … ADD COLUMN`
    /// needs one where the column is `NOT NULL`, so a table that gained columns carries them
    /// where the same table made in one go has none. An expression (`DEFAULT (…)`, a
    /// function, `CURRENT_TIME`) is kept, and so compares unequal.
    public var withoutConstantDefaults: SchemaStatement {
        var kept: [Token] = []
        kept.reserveCapacity(tokens.count)
        var index = 0
        while index < tokens.count {
            if tokens[index] == .word("DEFAULT"), index + 1 < tokens.count {
                var literal = index + 1
                if tokens[literal] == .symbol("-"), literal + 1 < tokens.count, case .number = tokens[literal + 1] { literal += 1 }
                switch tokens[literal] {
                case .number, .string, .blob:
                    index = literal + 1
                    continue
                default:
                    break
                }
            }
            kept.append(tokens[index])
            index += 1
        }
        return SchemaStatement(tokens: kept)
    }

    /// Whether the statement is one constant literal (a number, optionally negative, a string
    /// or a blob): what `PRAGMA table_xinfo` shows as the default of a column that has a constant one.
    public var isConstantLiteral: Bool {
        switch tokens.count {
        case 1:
            switch tokens[0] { case .number, .string, .blob: return true; default: return false }
        case 2:
            if tokens[0] == .symbol("-"), case .number = tokens[1] { return true }
            return false
        default:
            return false
        }
    }

    /// The first token where `self` and `other` differ, as text for a message (`end` when
    /// one statement stops first); nil when they are equal.
    public func firstDifference(from other: SchemaStatement) -> String? {
        for (index, token) in tokens.enumerated() {
            guard index < other.tokens.count else { return "at \(Self.text(token)), where the format's statement ends" }
            if token != other.tokens[index] { return "at \(Self.text(token)), where the format has \(Self.text(other.tokens[index]))" }
        }
        return tokens.count < other.tokens.count ? "it ends where the format has \(Self.text(other.tokens[tokens.count]))" : nil
    }

    public var description: String { tokens.map(Self.text).joined(separator: " ") }

    /// A token as SQL text (names in double quotes).
    static func text(_ token: Token) -> String {
        switch token {
        case .word(let word): word
        case .name(let name): "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        case .string(let string): "'" + string.replacingOccurrences(of: "'", with: "''") + "'"
        case .number(let number): number
        case .blob(let hex): "X'\(hex)'"
        case .symbol(let symbol): symbol
        }
    }

    // MARK: Tokenizer (SQLite's tokenize.c, without what a schema statement never holds)

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// Letters, digits, `_`, `$` and every byte of a non-ASCII character (as SQLite's `IdChar`).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == 0x5F || byte == 0x24 || byte >= 0x80
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func string(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func tokenize(_ bytes: [UInt8]) -> [Token]? {
        var tokens: [Token] = []
        var i = 0
        let n = bytes.count
        /// The text up to the closing `quote` (a doubled quote is one), and the index after it.
        func quoted(from start: Int, closing quote: UInt8, doubling: Bool) -> (String, Int)? {
            var text: [UInt8] = []
            var j = start
            while j < n {
                if bytes[j] == quote {
                    if doubling, j + 1 < n, bytes[j + 1] == quote {
                        text.append(quote)
                        j += 2
                        continue
                    }
                    return (string(text[...]), j + 1)
                }
                text.append(bytes[j])
                j += 1
            }
            return nil
        }
        while i < n {
            let byte = bytes[i]
            if isSpace(byte) { i += 1; continue }
            switch byte {
            case UInt8(ascii: "-") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "-"):
                return nil  // a comment
            case UInt8(ascii: "/") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "*"):
                return nil
            case UInt8(ascii: "'"):
                guard let (text, next) = quoted(from: i + 1, closing: byte, doubling: true) else { return nil }
                tokens.append(.string(text))
                i = next
            case UInt8(ascii: "\""), UInt8(ascii: "`"):
                guard let (text, next) = quoted(from: i + 1, closing: byte, doubling: true) else { return nil }
                tokens.append(.name(text))
                i = next
            case UInt8(ascii: "["):
                guard let (text, next) = quoted(from: i + 1, closing: UInt8(ascii: "]"), doubling: false) else { return nil }
                tokens.append(.name(text))
                i = next
            case _ where byte | 0x20 == UInt8(ascii: "x") && i + 1 < n && bytes[i + 1] == UInt8(ascii: "'"):
                var j = i + 2
                while j < n, isHexDigit(bytes[j]) { j += 1 }
                guard j < n, bytes[j] == UInt8(ascii: "'"), (j - i - 2) % 2 == 0 else { return nil }
                tokens.append(.blob(string(bytes[(i + 2)..<j]).uppercased()))
                i = j + 1
            case _ where isDigit(byte) || (byte == UInt8(ascii: ".") && i + 1 < n && isDigit(bytes[i + 1])):
                var j = i
                if byte == UInt8(ascii: "0"), j + 1 < n, bytes[j + 1] | 0x20 == UInt8(ascii: "x") {
                    j += 2
                    let digits = j
                    while j < n, isHexDigit(bytes[j]) { j += 1 }
                    guard j > digits else { return nil }
                } else {
                    while j < n, isDigit(bytes[j]) { j += 1 }
                    if j < n, bytes[j] == UInt8(ascii: ".") {
                        j += 1
                        while j < n, isDigit(bytes[j]) { j += 1 }
                    }
                    if j < n, bytes[j] | 0x20 == UInt8(ascii: "e") {
                        var k = j + 1
                        if k < n, bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: "-") { k += 1 }
                        guard k < n, isDigit(bytes[k]) else { return nil }
                        while k < n, isDigit(bytes[k]) { k += 1 }
                        j = k
                    }
                }
                // SQLite rejects a number run into a name (`12abc`).
                guard j >= n || !isNameByte(bytes[j]) else { return nil }
                tokens.append(.number(string(bytes[i..<j])))
                i = j
            case _ where isNameByte(byte) && !isDigit(byte) && byte != UInt8(ascii: "$"):
                var j = i
                while j < n, isNameByte(bytes[j]) { j += 1 }
                tokens.append(.word(string(bytes[i..<j]).uppercased()))
                i = j
            default:
                let two = i + 1 < n ? string(bytes[i...(i + 1)]) : ""
                if ["||", "<=", ">=", "==", "!=", "<>", "<<", ">>"].contains(two) {
                    tokens.append(.symbol(two))
                    i += 2
                } else if "(),;+-*/%<>=&|~.".utf8.contains(byte) {
                    tokens.append(.symbol(string(bytes[i...i])))
                    i += 1
                } else {
                    return nil  // a parameter (?, :, @, $, #) or a byte SQLite rejects
                }
            }
        }
        return tokens
    }
}

/// A column as `PRAGMA table_xinfo` describes it: what SQLite itself made of the statement.
public struct TableColumn: Equatable, Sendable {
    public var name: String
    public var type: String
    public var notNull: Bool
    /// The text of the default expression, nil when there is none.
    public var defaultValue: String?
    /// The column's position in the primary key (1-based), 0 when it is not part of it.
    public var primaryKey: Int
    /// 0 for an ordinary column, 1 for a hidden column of a virtual table, 2 and 3 for
    /// generated columns (virtual and stored).
    public var hidden: Int
}

extension Database {
    /// Every column of `table` in the main database, hidden and generated ones included
    /// (`PRAGMA table_xinfo`). Reads the schema only; for a view it would compile the view,
    /// so call it on tables.
    public func tableColumns(of table: String) throws(DatabaseError) -> [TableColumn] {
        let statement = try prepare("SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?, 'main')")
        try statement.bind([.text(table)])
        var columns: [TableColumn] = []
        while try statement.step() {
            columns.append(TableColumn(name: statement.string(at: 0), type: statement.string(at: 1), notNull: statement.int64(at: 2) != 0,
                                       defaultValue: statement.isNull(at: 3) ? nil : statement.string(at: 3),
                                       primaryKey: Int(truncatingIfNeeded: statement.int64(at: 4)),
                                       hidden: Int(truncatingIfNeeded: statement.int64(at: 5))))
        }
        return columns
    }
}
