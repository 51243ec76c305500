/// Splits command-line tokens into options with their values, flags and positional
/// values, following the arguments of one command.
///
/// Recognises `--name value`, `--name=value`, `-n value`, `-nvalue`, clusters of short
/// flags (`-qv`, `-qo file`), `--` (everything after it is positional), `-` (a positional
/// value meaning standard input or output) and negative numbers as values.
struct ArgumentScanner {
    enum Element {
        /// An option and its value; `spelling` is the name as typed (`-o`, `--output`).
        case value(ArgumentDefinition, text: String, spelling: String)
        /// A flag, or (`isOn == false`) its inverted spelling.
        case flag(ArgumentDefinition, isOn: Bool)
        /// A positional value and its index in the token list.
        case positional(String, index: Int)
        /// `-h` or `--help`.
        case help
        /// `--version`, when the command answers to it.
        case version
    }

    private let arguments: ArgumentSet
    private let answersVersion: Bool
    private let tokens: [String]
    private var position = 0
    private var pending: [Element] = []
    private var isAfterTerminator = false

    init(arguments: ArgumentSet, tokens: [String], answersVersion: Bool) {
        self.arguments = arguments
        self.tokens = tokens
        self.answersVersion = answersVersion
    }

    /// The next element, or `nil` after the last token.
    mutating func next() throws(ParserError.Reason) -> Element? {
        if !pending.isEmpty { return pending.removeFirst() }
        while position < tokens.count {
            let index = position
            let token = tokens[index]
            position += 1
            if isAfterTerminator || !looksLikeOption(token) {
                return .positional(token, index: index)
            }
            if token == "--" {
                isAfterTerminator = true
                continue
            }
            if token.hasPrefix("--") {
                return try scanLong(token)
            }
            pending = try scanShortCluster(token)
            return pending.isEmpty ? nil : pending.removeFirst()
        }
        return nil
    }

    /// Whether a token is an option (or `--`) rather than a value. `-` alone and negative
    /// numbers are values, unless a short option is named by the digit.
    func looksLikeOption(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token.count > 1 else { return false }
        if Self.isNegativeNumber(token), let first = token.dropFirst().first {
            return arguments.definition(named: .short(first)) != nil
        }
        return true
    }

    static func isNegativeNumber(_ token: String) -> Bool {
        let body = token.dropFirst()
        guard token.hasPrefix("-"), let first = body.first, first.isNumber || first == "." else { return false }
        return Double(body) != nil
    }

    // MARK: - Long options

    private mutating func scanLong(_ token: String) throws(ParserError.Reason) -> Element {
        let body = token.dropFirst(2)
        let equals = body.firstIndex(of: "=")
        let name = String(body[..<(equals ?? body.endIndex)])
        let attached = equals.map { String(body[body.index(after: $0)...]) }
        let spelling = "--\(name)"

        if name == "help" { return .help }
        if name == "version", answersVersion { return .version }
        guard let (definition, isOn) = arguments.definition(named: .long(name)) else {
            let candidates = arguments.allLongNames + ["--help"] + (answersVersion ? ["--version"] : [])
            throw .unknownOption(spelling, suggestion: Suggestions.closest(to: spelling, among: candidates))
        }
        switch definition.kind {
        case .flag:
            if attached != nil { throw .flagWithValue(spelling) }
            return .flag(definition, isOn: isOn)
        case .option, .positional:
            if let attached {
                return .value(definition, text: attached, spelling: spelling)
            }
            return .value(definition, text: try takeValue(for: definition, spelling: spelling), spelling: spelling)
        }
    }

    // MARK: - Short options

    private mutating func scanShortCluster(_ token: String) throws(ParserError.Reason) -> [Element] {
        let characters = Array(token.dropFirst())
        var elements: [Element] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let spelling = "-\(character)"
            if character == "h" {
                elements.append(.help)
                index += 1
                continue
            }
            guard let (definition, isOn) = arguments.definition(named: .short(character)) else {
                throw unknownShortOption(token, at: index)
            }
            switch definition.kind {
            case .flag:
                elements.append(.flag(definition, isOn: isOn))
                index += 1
            case .option, .positional:
                let rest = String(characters[(index + 1)...])
                let text = try rest.isEmpty ? takeValue(for: definition, spelling: spelling) : rest
                elements.append(.value(definition, text: text, spelling: spelling))
                index = characters.count
            }
        }
        return elements
    }

    /// An unknown short option; `-format` typed for `--format` gets a suggestion.
    private func unknownShortOption(_ token: String, at index: Int) -> ParserError.Reason {
        let characters = Array(token.dropFirst())
        if index == 0, characters.count > 1 {
            let asLong = "-" + token
            let candidates = arguments.allLongNames + ["--help"] + (answersVersion ? ["--version"] : [])
            if candidates.contains(asLong) {
                return .unknownOption(token, suggestion: asLong)
            }
            if let suggestion = Suggestions.closest(to: asLong, among: candidates) {
                return .unknownOption(token, suggestion: suggestion)
            }
        }
        return .unknownOption("-\(characters[index])", suggestion: nil)
    }

    // MARK: - Values

    /// The token after an option as its value; a token that looks like an option is not one.
    private mutating func takeValue(
        for definition: ArgumentDefinition, spelling: String
    ) throws(ParserError.Reason) -> String {
        guard position < tokens.count else {
            throw .missingValue(label: "\(spelling) <\(definition.valueName)>", spelling: spelling, nextToken: nil)
        }
        let candidate = tokens[position]
        if looksLikeOption(candidate) {
            throw .missingValue(label: "\(spelling) <\(definition.valueName)>", spelling: spelling, nextToken: candidate)
        }
        position += 1
        return candidate
    }
}
