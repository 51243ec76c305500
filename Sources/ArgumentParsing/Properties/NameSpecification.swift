/// The names an option or a flag answers to on the command line.
///
/// Names are derived from the property's name, converted to kebab case
/// (`outDir` gives `--out-dir`, and `-o` for ``short``), or given explicitly:
///
/// ```swift
/// @Option(name: .shortAndLong) var output: String            // -o, --output
/// @Option(name: .customShort("C")) var directory: String?    // -C
/// @Option(name: [.customShort("o"), .customLong("out")]) var destination: String
/// ```
public struct NameSpecification: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// One name, or one rule for deriving a name from the property.
    public struct Element: Sendable, Hashable {
        enum Representation: Sendable, Hashable {
            case long
            case customLong(String)
            case short
            case customShort(Character)
        }

        var representation: Representation

        /// The property's name in kebab case, after two dashes.
        public static var long: Element { Element(representation: .long) }
        /// The first character of the property's name, after one dash.
        public static var short: Element { Element(representation: .short) }

        /// An explicit long name (give it without the dashes).
        public static func customLong(_ name: String) -> Element {
            Element(representation: .customLong(name))
        }

        /// An explicit one-character name (give it without the dash).
        public static func customShort(_ character: Character) -> Element {
            Element(representation: .customShort(character))
        }
    }

    var elements: [Element]

    /// Creates a specification from its elements, in the order they are listed in help.
    public init(_ elements: some Sequence<Element>) {
        self.elements = Array(elements)
    }

    /// Creates a specification from its elements: `[.customShort("o"), .long]`.
    public init(arrayLiteral elements: Element...) {
        self.elements = elements
    }

    /// `--property-name`.
    public static var long: NameSpecification { [.long] }
    /// `-p`, from the first character of the property's name.
    public static var short: NameSpecification { [.short] }
    /// Both `-p` and `--property-name`.
    public static var shortAndLong: NameSpecification { [.long, .short] }

    /// One explicit long name (without the dashes).
    public static func customLong(_ name: String) -> NameSpecification {
        [.customLong(name)]
    }

    /// One explicit short name (without the dash).
    public static func customShort(_ character: Character) -> NameSpecification {
        [.customShort(character)]
    }

    /// The concrete names for a property, short names first (the order help shows them in).
    func names(for propertyName: String) -> [Name] {
        var names: [Name] = []
        for element in elements {
            let name: Name? = switch element.representation {
            case .long: .long(propertyName.kebabCased)
            case .customLong(let long): .long(long)
            case .short: propertyName.first.map { .short($0) }
            case .customShort(let short): .short(short)
            }
            if let name, !names.contains(name) { names.append(name) }
        }
        return names.filter(\.isShort) + names.filter { !$0.isShort }
    }
}

/// A concrete option name: `--long` or `-s`.
enum Name: Hashable, Sendable, CustomStringConvertible {
    case long(String)
    case short(Character)

    var isShort: Bool {
        if case .short = self { true } else { false }
    }

    /// The name as typed, with its dashes.
    var description: String {
        switch self {
        case .long(let name): "--\(name)"
        case .short(let character): "-\(character)"
        }
    }

    /// The name without dashes, for sorting and suggestions.
    var bareName: String {
        switch self {
        case .long(let name): name
        case .short(let character): String(character)
        }
    }
}

extension String {
    /// `outDir` → `out-dir`, `cardID` → `card-id`, `URLString` → `url-string`.
    var kebabCased: String {
        let characters = Array(self)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character == "_" {
                if !result.isEmpty, result.last != "-" { result.append("-") }
                continue
            }
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLowercase = index + 1 < characters.count && characters[index + 1].isLowercase
                let startsWord = previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLowercase)
                if startsWord, result.last != "-" { result.append("-") }
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }
}
