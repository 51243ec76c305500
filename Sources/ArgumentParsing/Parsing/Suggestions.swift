/// "Did you mean" suggestions for mistyped options and subcommands.
enum Suggestions {
    /// The candidate closest to `input`, when it is close enough to be a likely typo:
    /// within one edit for short words, two for longer ones (a swap of two neighbouring
    /// characters counts as one edit), or the only candidate `input` is a prefix of.
    static func closest(to input: String, among candidates: [String]) -> String? {
        let typed = Array(input.lowercased())
        guard !typed.isEmpty else { return nil }
        let limit = typed.count <= 3 ? 1 : 2
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != input {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        if let best { return best.candidate }
        let extensions = candidates.filter { $0.lowercased().hasPrefix(input.lowercased()) }
        return extensions.count == 1 ? extensions.first : nil
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and
    /// transpositions of adjacent characters each cost one.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousRow: [Int] = []
        var row = Array(0...b.count)
        for i in 1...a.count {
            let rowBeforePrevious = previousRow
            previousRow = row
            row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previousRow[j] + 1, row[j - 1] + 1, previousRow[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], rowBeforePrevious[j - 2] + 1)
                }
            }
        }
        return row[b.count]
    }
}
