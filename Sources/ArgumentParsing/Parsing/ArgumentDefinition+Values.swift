// Definitions of value-taking arguments, built by the property wrappers' initializers,
// where the element type is still known.

extension ArgumentDefinition {
    /// One value of type `Element`; required when `initial` is `nil`.
    static func single<Element: ExpressibleByArgument>(
        _: Element.Type, kind: Kind, help: ArgumentHelp, initial: Element?
    ) -> ArgumentDefinition {
        ArgumentDefinition(
            kind: kind, help: help,
            update: .value { text, value in
                guard let element = Element(argument: text) else { return false }
                value = element
                return true
            },
            initial: initial,
            defaultValueDescription: initial?.defaultValueDescription,
            allValues: Element.allValueStrings,
            isRepeating: false)
    }

    /// An optional value: `Element?`, `nil` when absent unless `initial` says otherwise.
    static func optional<Element: ExpressibleByArgument>(
        _: Element.Type, kind: Kind, help: ArgumentHelp, initial: Element?
    ) -> ArgumentDefinition {
        ArgumentDefinition(
            kind: kind, help: help,
            update: .value { text, value in
                guard let element = Element(argument: text) else { return false }
                value = Optional.some(element) as Any  // stored as `Element?`, the property's type
                return true
            },
            initial: .some(initial as Any),  // present even when `nil`: an optional is never required
            defaultValueDescription: initial?.defaultValueDescription,
            allValues: Element.allValueStrings,
            isRepeating: false)
    }

    /// Every occurrence, collected into `[Element]`; required (at least one) when `initial` is `nil`.
    static func array<Element: ExpressibleByArgument>(
        _: Element.Type, kind: Kind, help: ArgumentHelp, initial: [Element]?
    ) -> ArgumentDefinition {
        let defaultDescription = initial.flatMap { values in
            values.isEmpty ? nil : values.map(\.defaultValueDescription).joined(separator: ", ")
        }
        return ArgumentDefinition(
            kind: kind, help: help,
            update: .value { text, value in
                guard let element = Element(argument: text) else { return false }
                var elements = (value as? [Element]) ?? []
                value = nil  // the array's only other reference: the append below is in place
                elements.append(element)
                value = elements
                return true
            },
            initial: initial,
            defaultValueDescription: defaultDescription,
            allValues: Element.allValueStrings,
            isRepeating: true)
    }
}
