/// The byte that separates the fields of a CSV record: comma, tab, semicolon, pipe, colon,
/// space, or any other printable ASCII character that is not a quote.
///
/// The separator is always one ASCII byte, so the reader can split records without
/// decoding UTF-8. Anki names the common ones (`#separator:tab`); ``ankiName`` and
/// ``init(ankiName:)`` convert to and from those names.
///
/// ```swift
/// let tab = CSVSeparator.tab
/// let custom = CSVSeparator("~")     // any printable ASCII character
/// let fromHeader = CSVSeparator(ankiName: "Semicolon")
/// ```
public struct CSVSeparator: Hashable, Sendable, CustomStringConvertible {
    /// The ASCII byte of the separator.
    public let byte: UInt8

    /// `,`, the separator of RFC 4180.
    public static let comma = CSVSeparator(validByte: UInt8(ascii: ","))
    /// A horizontal tab, the separator of TSV files and of Anki's exports.
    public static let tab = CSVSeparator(validByte: UInt8(ascii: "\t"))
    /// `;`, common in locales whose decimal separator is a comma.
    public static let semicolon = CSVSeparator(validByte: UInt8(ascii: ";"))
    /// `|`.
    public static let pipe = CSVSeparator(validByte: UInt8(ascii: "|"))
    /// `:`.
    public static let colon = CSVSeparator(validByte: UInt8(ascii: ":"))
    /// A space.
    public static let space = CSVSeparator(validByte: UInt8(ascii: " "))

    /// The separators Anki recognises by name, in the order Anki tries them when it guesses
    /// the separator of a file: tab, pipe, semicolon, colon, comma, space.
    public static let ankiGuessOrder: [CSVSeparator] = [.tab, .pipe, .semicolon, .colon, .comma, .space]

    private init(validByte: UInt8) {
        byte = validByte
    }

    /// Creates a separator from an ASCII character.
    ///
    /// Returns `nil` for a character that cannot separate fields: a non-ASCII character,
    /// a line break (`\r`, `\n`), a double quote, or a control character other than tab.
    public init?(_ character: Character) {
        guard let ascii = character.asciiValue else { return nil }
        self.init(byte: ascii)
    }

    /// Creates a separator from an ASCII byte; `nil` under the same rules as ``init(_:)``.
    public init?(byte: UInt8) {
        let isPrintable = byte >= 0x20 && byte < 0x7F
        guard byte == 0x09 || isPrintable, byte != UInt8(ascii: "\"") else { return nil }
        self.byte = byte
    }

    /// Reads the value of an Anki `#separator:` header: a name (`Comma`, `Semicolon`, `Tab`,
    /// `Space`, `Pipe`, `Colon`, in any case, surrounding spaces ignored) or the literal
    /// character itself (`#separator:;`, `#separator: ` for a space).
    public init?(ankiName value: String) {
        let name = value.trimmingASCIISpaces().lowercased()
        if let named = Self.ankiGuessOrder.first(where: { $0.ankiName == name }) {
            self = named
            return
        }
        // A single literal character: compare untrimmed, so "#separator: " means a space.
        let literal = value.utf8.count == 1 ? value : (name.utf8.count == 1 ? name : "")
        guard let character = literal.first, let separator = CSVSeparator(character) else { return nil }
        self = separator
    }

    /// Anki's lowercase name of the separator (`tab`, `comma`, …), or the character itself
    /// for a separator Anki has no name for.
    public var ankiName: String {
        switch byte {
        case UInt8(ascii: ","): "comma"
        case UInt8(ascii: "\t"): "tab"
        case UInt8(ascii: ";"): "semicolon"
        case UInt8(ascii: "|"): "pipe"
        case UInt8(ascii: ":"): "colon"
        case UInt8(ascii: " "): "space"
        default: String(UnicodeScalar(byte))
        }
    }

    /// The separator as a character.
    public var character: Character { Character(UnicodeScalar(byte)) }

    /// The separator's Anki name, e.g. `tab`.
    public var description: String { ankiName }
}

extension String {
    /// The string without leading and trailing ASCII spaces and tabs.
    func trimmingASCIISpaces() -> String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
