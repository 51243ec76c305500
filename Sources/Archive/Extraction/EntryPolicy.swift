/// The checks every entry passes before anything is extracted: a safe name, a plain file or
/// directory, no duplicate, inside the allowed top level, accepted by the allow-list.
///
/// One policy value checks one pass over one archive; it remembers the names seen.
struct EntryPolicy {
    let topLevel: ArchiveExtractor.TopLevel
    let allow: ((String) -> Bool)?
    let archivePath: String

    /// Explicit entries seen so far: name → is a directory.
    private var seen: [String: Bool] = [:]
    /// Directories implied by the names seen so far (every proper prefix).
    private var impliedDirectories: Set<String> = []
    /// The single top-level name, once the first entry fixed it.
    private var topName: String?

    init(topLevel: ArchiveExtractor.TopLevel, allow: ((String) -> Bool)?, archivePath: String) {
        self.topLevel = topLevel
        self.allow = allow
        self.archivePath = archivePath
    }

    /// What an admitted entry will become on disk.
    struct Admitted {
        /// The normalised relative name (`/`-separated, no `.`, no trailing `/`).
        let name: String
        let components: [Substring]
        let isDirectory: Bool
        /// The size the header declares, if any.
        let size: Int64?
    }

    /// Checks `entry`; returns what to create, `nil` for an entry to skip (the `./` entry
    /// naming the extraction directory itself), or throws ``ArchiveError`` naming the entry.
    mutating func admit(_ entry: ArchiveEntry) throws -> Admitted? {
        func refuse(_ reason: String) -> ArchiveError {
            ArchiveError(.unsafeEntry(name: entry.path), path: archivePath, entry: entry.path, reason: reason)
        }
        let components: [Substring]
        switch EntryName.components(of: entry.path) {
        case .success(let parts): components = parts
        case .failure(let refusal): throw refuse(refusal.reason)
        }
        let isDirectory: Bool
        switch entry.type {
        case .file: isDirectory = false
        case .directory: isDirectory = true
        case .symlink, .hardlink, .other: throw refuse("is a \(entry.typeDescription); only files and directories are extracted")
        }
        guard let first = components.first else {
            if isDirectory { return nil }
            throw refuse("names the extraction directory itself")
        }
        let name = components.joined(separator: "/")

        switch topLevel {
        case .any:
            break
        case .named(let expected):
            guard first == expected else { throw refuse("is outside the top-level directory '\(expected)'") }
            if components.count == 1, !isDirectory { throw refuse("is a file where the directory '\(expected)' belongs") }
        case .single(let accepts):
            if let topName {
                guard first == topName else {
                    throw refuse("is a second top-level entry beside '\(topName)'; the archive must hold one directory")
                }
            } else {
                guard accepts(String(first)) else { throw refuse("has a top-level directory '\(first)' that is not accepted here") }
                topName = String(first)
            }
            if components.count == 1, !isDirectory { throw refuse("is a file at the top level; the archive must hold one directory") }
        }
        if let allow, !allow(name) { throw refuse("is not an entry allowed here") }

        if seen[name] != nil { throw refuse("appears twice in the archive") }
        if !isDirectory, impliedDirectories.contains(name) {
            throw refuse("is a file, but other entries are inside it")
        }
        var prefix = ""
        for component in components.dropLast() {
            prefix = prefix.isEmpty ? String(component) : prefix + "/" + component
            if seen[prefix] == false { throw refuse("is inside '\(prefix)', which is a file") }
            impliedDirectories.insert(prefix)
        }
        seen[name] = isDirectory
        return Admitted(name: name, components: components, isDirectory: isDirectory, size: entry.size)
    }
}
