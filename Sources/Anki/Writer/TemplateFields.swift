/// Field references in Anki card templates, and which cards a note gets from them.
enum TemplateFields {
    /// Names that templates use that are not fields.
    static let specialNames: Set<String> = ["FrontSide", "Tags", "Type", "Deck", "Subdeck", "Card", "CardFlag", "CardID"]

    /// The field names a template refers to: `{{Name}}`, `{{#Name}}`, `{{^Name}}`, `{{filter:Name}}`,
    /// each once, in order; special names (`FrontSide`, `Tags`, …) are left out.
    static func referencedFields(in template: String) -> [String] {
        var seen: Set<String> = []
        return references(in: template).map(\.field).filter { seen.insert($0).inserted }
    }

    /// The fields `{{cloze:Name}}` (or any filter chain ending in `cloze`) refers to.
    static func clozeFields(in template: String) -> [String] {
        references(in: template).filter { $0.filters.contains("cloze") }.map(\.field)
    }

    private static func references(in template: String) -> [(field: String, filters: [String])] {
        var result: [(String, [String])] = []
        var seen: Set<String> = []
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            var inner = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)[...]
            rest = rest[close.upperBound...]
            if let first = inner.first, "#^/".contains(first) { inner = inner.dropFirst() }
            let parts = inner.split(separator: ":", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard let name = parts.last, !name.isEmpty, !specialNames.contains(name) else { continue }
            let filters = parts.dropLast().map { $0.lowercased() }
            if seen.insert(name + "\u{0}" + filters.joined(separator: ":")).inserted {
                result.append((name, filters))
            }
        }
        return result
    }

    /// The cloze numbers (`{{c3::…}}` → 3) in `text`, in ascending order.
    static func clozeNumbers(in text: String) -> [Int] {
        var numbers: Set<Int> = []
        let bytes = Array(text.utf8)
        var i = 0
        while i + 3 < bytes.count {
            if bytes[i] == UInt8(ascii: "{"), bytes[i + 1] == UInt8(ascii: "{"),
               bytes[i + 2] == UInt8(ascii: "c") || bytes[i + 2] == UInt8(ascii: "C") {
                var j = i + 3
                var value = 0
                while j < bytes.count, bytes[j] >= 48, bytes[j] <= 57, value < 10_000 {
                    value = value * 10 + Int(bytes[j] - 48)
                    j += 1
                }
                if j > i + 3, j + 1 < bytes.count, bytes[j] == UInt8(ascii: ":"), bytes[j + 1] == UInt8(ascii: ":"), value > 0 {
                    numbers.insert(value)
                }
                i = j
            } else {
                i += 1
            }
        }
        return numbers.sorted()
    }

    /// The template (standard) or cloze (cloze) ordinals for which Anki would make a card from
    /// these fields: a standard template needs one of the fields its question refers to to be
    /// non-empty; a cloze type gets one card per cloze number. Never empty: falls back to `[0]`.
    static func cardOrdinals(for fields: [String], of noteType: AnkiNoteType) -> [Int] {
        CardRules(noteType).ordinals(for: fields)
    }

    /// Whether a field counts as empty for card generation: only whitespace and `<br>`/`<div>`
    /// tags, as Anki's `field_is_empty`.
    static func isBlank(_ text: String) -> Bool {
        var sawNonASCII = false
        for byte in text.utf8 {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C: continue
            case UInt8(ascii: "<"): return isBlankHTML(text)
            case 0..<0x80: return false
            default: sawNonASCII = true
            }
        }
        return !sawNonASCII || text.unicodeScalars.allSatisfy { $0.properties.isWhitespace || $0 == "\u{200B}" }
    }

    private static func isBlankHTML(_ text: String) -> Bool {
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            guard isBlank(String(rest[..<open])) else { return false }
            guard let close = rest[open...].firstIndex(of: ">") else { return false }
            let tag = rest[rest.index(after: open)..<close].lowercased().filter { $0 != " " && $0 != "/" }
            guard tag == "br" || tag == "div" else { return false }
            rest = rest[rest.index(after: close)...]
        }
        return isBlank(String(rest))
    }
}

/// Which cards a note of one note type gets, worked out once per type from its templates.
struct CardRules {
    private enum Rule {
        /// Per template: its ordinal and the field indices its question refers to.
        case standard([(ordinal: Int, fields: [Int])])
        /// The indices of the fields `{{cloze:…}}` reads (all fields when none is named).
        case cloze([Int])
    }

    private let rule: Rule

    init(_ noteType: AnkiNoteType) {
        func indices(_ names: [String]) -> [Int] {
            names.compactMap { name in noteType.fields.firstIndex { $0.name == name } }
        }
        switch noteType.kind {
        case .cloze:
            let names = TemplateFields.clozeFields(in: noteType.templates.first?.questionFormat ?? "")
            let fields = indices(names)
            rule = .cloze(fields.isEmpty ? Array(noteType.fields.indices) : fields)
        case .standard:
            rule = .standard(noteType.templates.map {
                ($0.ordinal, indices(TemplateFields.referencedFields(in: $0.questionFormat)))
            })
        }
    }

    /// The card ordinals for a note with `fields`; at least `[0]`.
    func ordinals(for fields: [String]) -> [Int] {
        var ordinals: [Int] = []
        switch rule {
        case .cloze(let indices):
            var numbers: Set<Int> = []
            for index in indices where index < fields.count {
                numbers.formUnion(TemplateFields.clozeNumbers(in: fields[index]))
            }
            ordinals = numbers.sorted().map { $0 - 1 }
        case .standard(let templates):
            for template in templates where template.fields.contains(where: {
                $0 < fields.count && !TemplateFields.isBlank(fields[$0])
            }) {
                ordinals.append(template.ordinal)
            }
        }
        return ordinals.isEmpty ? [0] : ordinals
    }
}
