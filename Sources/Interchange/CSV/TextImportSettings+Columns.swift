extension TextImportSettings {
    /// The role of each of the first `count` columns.
    ///
    /// Columns named by a `… column:` header take that role first. Then a labelled column
    /// (`#columns:` or a header row) whose label names a role (`Front`, `Back`, `Tags`,
    /// `GUID`, `Notetype`, `Deck`) takes it. The remaining columns, left to right, fill the
    /// front, then the back, then (only for unlabelled columns, as Anki's fallback does) the
    /// tags; anything left is an extra note field. The result for `count` is always a prefix
    /// of the result for a larger count.
    public func columnRoles(count: Int) -> [TextImportRole] {
        guard count > 0 else { return [] }
        var roles = [TextImportRole?](repeating: nil, count: count)
        var taken = Set<TextImportRole>()
        func assign(_ role: TextImportRole, to column: Int?) {
            guard let column, column >= 1, column <= count, roles[column - 1] == nil, !taken.contains(role) else { return }
            roles[column - 1] = role
            taken.insert(role)
        }
        // Explicit columns are claimed even when beyond `count`, so labels cannot take them.
        for (role, column) in [(TextImportRole.tags, tagsColumn), (.guid, guidColumn), (.notetype, notetypeColumn), (.deck, deckColumn)] {
            if column != nil { taken.insert(role) }
            if let column, column >= 1, column <= count, roles[column - 1] == nil { roles[column - 1] = role }
        }
        let labels = columns ?? []
        for index in 0..<min(count, labels.count) where roles[index] == nil {
            if let role = TextImportRole(label: labels[index], fieldNames: fieldNames), !taken.contains(role) {
                roles[index] = role
                taken.insert(role)
            }
        }
        for index in 0..<count where roles[index] == nil {
            let label = index < labels.count && !labels[index].isEmpty ? labels[index] : nil
            if !taken.contains(.front) {
                assign(.front, to: index + 1)
            } else if !taken.contains(.back) {
                assign(.back, to: index + 1)
            } else if label == nil && !taken.contains(.tags) {
                assign(.tags, to: index + 1)
            } else {
                roles[index] = .extra(name: label)
            }
        }
        return roles.map { $0 ?? .extra(name: nil) }
    }
}

extension TextImportSettings {
    /// Whether a column of `role` has a note field (or a role) to go to: always, unless the
    /// note type's fields are known and it is an extra column not named after one of them.
    func hasDestination(_ role: TextImportRole) -> Bool {
        guard case .extra(let name) = role, let fieldNames else { return true }
        guard let name = name?.trimmingASCIISpaces().lowercased() else { return false }
        return fieldNames.dropFirst(2).contains { $0.lowercased() == name }
    }

    /// The tags of one tags cell, split as the cell is written: on white space, Anki's way
    /// (`verbs irregular`), or, when it holds commas or semicolons, as a list
    /// (`animals, nouns` is `animals` and `nouns`; spaces inside an item become `_`, as Anki
    /// allows no space in a tag).
    static func splitTagCell(_ text: Substring) -> [String] {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") }) else { return splitTags(text) }
        return text.split(whereSeparator: { $0 == "," || $0 == ";" }).compactMap { item in
            let words = splitTags(item)
            return words.isEmpty ? nil : words.joined(separator: "_")
        }
    }
}
