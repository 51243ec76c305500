/// Checking and normalising entry names, shared by the writer (which refuses to write an
/// unsafe name) and the extractor (which refuses to extract one).
enum EntryName {
    /// The longest name accepted, in UTF-8 bytes (well under Linux's `PATH_MAX`).
    static let maxLength = 1024
    /// The longest path component accepted, in UTF-8 bytes (Linux's `NAME_MAX`).
    static let maxComponentLength = 255

    /// The components of `name` once `.` components, empty components and a trailing `/`
    /// are dropped, or the reason the name is unsafe.
    ///
    /// Refused: absolute names, `..` components, backslashes (a path separator elsewhere),
    /// NUL and other control characters, over-long names and components.
    static func components(of name: String) -> Result<[Substring], Refusal> {
        if name.isEmpty { return .failure(Refusal("has an empty name")) }
        if name.utf8.count > maxLength { return .failure(Refusal("has a name longer than \(maxLength) bytes")) }
        if name.hasPrefix("/") { return .failure(Refusal("is an absolute path")) }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return .failure(Refusal("has a control character in its name"))
        }
        if name.contains("\\") { return .failure(Refusal("has a backslash in its name")) }
        if name.contains("\u{FFFD}") { return .failure(Refusal("has a name that is not valid UTF-8")) }
        var components: [Substring] = []
        for component in name.split(separator: "/", omittingEmptySubsequences: true) {
            if component == ".." { return .failure(Refusal("has a '..' component")) }
            if component == "." { continue }
            if component.utf8.count > maxComponentLength {
                return .failure(Refusal("has a path component longer than \(maxComponentLength) bytes"))
            }
            components.append(component)
        }
        return .success(components)
    }

    /// Why a name is refused ("is an absolute path").
    struct Refusal: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
