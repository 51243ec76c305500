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
        func value(_ name: String) -> String? {
            noteType.fields.firstIndex { $0.name == name }.flatMap { $0 < fields.count ? fields[$0] : nil }
        }
        var ordinals: [Int] = []
        switch noteType.kind {
        case .cloze:
            let template = noteType.templates.first?.questionFormat ?? ""
            var names = clozeFields(in: template)
            if names.isEmpty { names = noteType.fields.map(\.name) }
            var numbers: Set<Int> = []
            for name in names { numbers.formUnion(clozeNumbers(in: value(name) ?? "")) }
            ordinals = numbers.sorted().map { $0 - 1 }
        case .standard:
            for template in noteType.templates {
                let names = referencedFields(in: template.questionFormat)
                let filled = names.contains { name in
                    !(value(name) ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                }
                if filled { ordinals.append(template.ordinal) }
            }
        }
        return ordinals.isEmpty ? [0] : ordinals
    }
}
