// How an argument is described; shared by help and manual pages so they say the same thing.

extension ArgumentDefinition {
    /// The argument as help lists it: `-o, --output <file>`, `--progress/--no-progress`, `<deck>`.
    var helpLabel: String {
        switch kind {
        case .positional:
            return "<\(valueName)>" + (isRepeating ? " ..." : "")
        case .option:
            return names.map(\.description).joined(separator: ", ") + " <\(valueName)>"
        case .flag(_, let inversion, _):
            let enabling = enablingNames.map(\.description).joined(separator: ", ")
            guard inversion != nil else { return enabling }
            return enabling + "/" + invertedNames.map(\.description).joined(separator: "/")
        }
    }

    /// The abstract, followed by the accepted values and the default: `The output format.
    /// (values: csv, tsv; default: csv)`.
    var summary: String {
        var details: [String] = []
        if !allValues.isEmpty { details.append("values: " + allValues.joined(separator: ", ")) }
        if let shownDefault { details.append("default: " + shownDefault) }
        let abstract = help.abstract.trimmingSpaces
        guard !details.isEmpty else { return abstract }
        let suffix = "(" + details.joined(separator: "; ") + ")"
        return abstract.isEmpty ? suffix : abstract + " " + suffix
    }

    /// The default worth showing: values of options and arguments, the spelling of an
    /// inverted flag; not the `false` of a plain flag or the `nil` of an optional.
    private var shownDefault: String? {
        if case .flag(_, let inversion, _) = kind {
            guard inversion != nil, let isOn = initial as? Bool else { return nil }
            return (isOn ? enablingNames : invertedNames).first { !$0.isShort }?.description
        }
        return defaultValueDescription
    }

    /// The spelling usage shows for a flag: the one that changes the default.
    var usageFlagName: Name? {
        if case .flag(_, .some, _) = kind, initial as? Bool == true {
            return invertedNames.first
        }
        return preferredName
    }
}
