import SwiftDiagnostics
import SwiftSyntax

/// What `@Model` makes of one stored property, read from its syntax alone (a macro sees no
/// types): the same analysis serves the class's schema lines and the property's accessors.
struct PersistedProperty {
    enum Kind {
        /// An attribute of a type the macro knows (numbers, strings, dates, data, UUID, URL,
        /// Decimal, optionals and collections of them).
        case attribute(KnownType)
        /// An `@Relationship` property.
        case relationship
        /// A property of a type the macro can't classify (an enum, a struct, another model):
        /// the generated code lets overload resolution decide between attribute and relationship.
        case undecided
    }

    /// How a known type is stored.
    struct KnownType {
        /// Converts to a column value (`DatabaseValueConvertible`), as opposed to JSON text.
        var isColumnValue: Bool
        /// A value the backing storage starts with before an initializer sets it; nil when the
        /// storage is optional instead (URL has no cheap placeholder).
        var placeholder: String?
    }

    let name: String
    let type: TypeSyntax?
    let initializer: ExprSyntax?
    let kind: Kind
    /// `@Attribute` options and parameters as written (`.unique`, `.externalStorage`, …).
    let attributeOptions: [ExprSyntax]
    let originalName: ExprSyntax?
    /// Whether `@Attribute(.ephemeral)`: observed, not stored.
    let isEphemeral: Bool
    /// `@Relationship` arguments as written.
    let deleteRule: ExprSyntax?
    let inverse: ExprSyntax?
    let minimumModelCount: ExprSyntax?
    let maximumModelCount: ExprSyntax?

    /// Whether `@Attribute(.transformable(by:))`: stored through a `ValueTransformer`.
    var isTransformable: Bool { attributeOptions.contains { PropertyAnalysis.memberName($0) == "transformable" } }

    /// The type without optional or collection syntax is syntactically optional.
    var isOptionalType: Bool { type.map(isOptional) ?? false }
    var isArrayType: Bool { type.map { arrayElement(of: $0) != nil } ?? false }
    /// `[T]?`: an optional to-many relationship when `T` is a model.
    var isOptionalArrayType: Bool { type.flatMap(optionalWrapped).map { arrayElement(of: $0) != nil } ?? false }

    /// The storage of an undecided (or URL) property without an initial value is optional
    /// unless the type already is; it stays nil until an initializer sets the property.
    var usesUnwrappedStorage: Bool {
        guard initializer == nil, let type else { return false }
        switch kind {
        case .relationship: return false
        case .attribute(let known): return known.placeholder == nil && !isOptional(type)
        case .undecided: return !isOptional(type) && arrayElement(of: type) == nil && !isDictionary(type)
        }
    }

    /// The backing storage's declaration (`private var _front: String = ""`), as source
    /// text; nil for a relationship (its contents live in the backing data).
    func storageDeclaration() -> String? {
        if case .relationship = kind { return nil }
        let storageName = "_\(name)"
        // No marker macro (`@Transient`) to keep `@Model` off it: every attached macro is one
        // more request to the plugin per property; `analyze` skips this shape instead.
        let attributes = "@exclusivity(unchecked) private var"
        if let initializer {
            if let type { return "\(attributes) \(storageName): \(type.trimmedDescription) = \(initializer.trimmedDescription)" }
            return "\(attributes) \(storageName) = \(initializer.trimmedDescription)"
        }
        guard let type else { return nil }
        if usesUnwrappedStorage { return "\(attributes) \(storageName): \(type.trimmedDescription)? = nil" }
        if case .attribute(let known) = kind, let placeholder = known.placeholder {
            return "\(attributes) \(storageName): \(type.trimmedDescription) = \(placeholder)"
        }
        if isOptional(type) { return "\(attributes) \(storageName): \(type.trimmedDescription) = nil" }
        if isDictionary(type) { return "\(attributes) \(storageName): \(type.trimmedDescription) = [:]" }
        return "\(attributes) \(storageName): \(type.trimmedDescription) = []"
    }

    /// The schema line for `schemaMetadata` (nil for an ephemeral attribute).
    ///
    /// Each kind of attribute has a factory of its own name (`_$column`, `_$codable`, …), so
    /// the type checker has one candidate to match; only a property whose type the macro
    /// can't classify goes through the overloads of `persisted`.
    func metadataLine(className: String) -> String? {
        if isEphemeral { return nil }
        let keyPath = "\\\(className).\(name)"
        let unwrapped = usesUnwrappedStorage ? "Unwrapped" : ""
        let storage = "\(usesUnwrappedStorage ? "unwrappedStorage" : "storage"): \\\(className)._\(name)"
        var options = ""
        if !attributeOptions.isEmpty { options += ", options: [\(attributeOptions.map { $0.trimmedDescription }.joined(separator: ", "))]" }
        if let originalName { options += ", originalName: \(originalName.trimmedDescription)" }
        if isTransformable {
            // Whatever the type: the transformer makes the stored Data.
            return "._$transformed\(unwrapped)(\"\(name)\", \(keyPath), \(storage)\(options))"
        }
        switch kind {
        case .attribute(let known):
            return "._$\(known.isColumnValue ? "column" : "codable")\(unwrapped)(\"\(name)\", \(keyPath), \(storage)\(options))"
        case .undecided:
            // The overloads that can apply to the type's shape (see `_$persistedValue`); all
            // of `persisted` when the type isn't written out.
            let factory: String
            if let type {
                if usesUnwrappedStorage {
                    factory = "_$persistedUnwrapped"
                } else if isOptional(type) {
                    factory = "_$persistedOptional"
                } else if arrayElement(of: type) != nil {
                    factory = "_$persistedArray"
                } else if isDictionary(type) || genericArguments(type, named: "Set") != nil {
                    factory = "_$codable"
                } else {
                    factory = "_$persistedValue"
                }
            } else {
                factory = "persisted"
            }
            return ".\(factory)(\"\(name)\", \(keyPath), \(storage)\(options))"
        case .relationship:
            var arguments = ""
            if let deleteRule { arguments += ", deleteRule: \(deleteRule.trimmedDescription)" }
            if let inverse { arguments += ", inverse: \(inverse.trimmedDescription)" }
            if isArrayType || isOptionalArrayType {
                if let minimumModelCount { arguments += ", minimumModelCount: \(minimumModelCount.trimmedDescription)" }
                if let maximumModelCount { arguments += ", maximumModelCount: \(maximumModelCount.trimmedDescription)" }
            }
            if let originalName { arguments += ", originalName: \(originalName.trimmedDescription)" }
            return ".relationship(\"\(name)\", \(keyPath)\(arguments))"
        }
    }

    /// The accessors of the public property, as source text. `root` is the class's name for key paths
    /// written with their root (`\Card.front`: nothing for the type checker to infer); nil
    /// for a generic class, whose key paths keep the inferred root (`\.front`).
    ///
    /// An attribute without an initial value gets an `init` accessor only in a subclass,
    /// whose initializer may set it before `super.init()`. Elsewhere its storage starts with
    /// a placeholder, so the model is initialized before the initializer's first statement
    /// and `self.front = front` calls the setter; the accessor would be one more function per
    /// attribute to type-check and compile that nothing calls.
    func accessors(root: String?, inSubclass: Bool) -> [String] {
        let keyPath = "\\\(root ?? "").\(name)"
        let storageName = "_\(name)"
        var result: [String] = []
        // A transformable property is an attribute whatever its type: its accessors go
        // straight to the storage, as a known type's do.
        let kind = isTransformable ? .attribute(KnownType(isColumnValue: false, placeholder: nil)) : self.kind
        switch kind {
        case .relationship:
            if initializer != nil {
                // The initial value (`= []`, `= nil`) is what a new model's relationship holds anyway.
                result.append("init(initialValue) {}")
            }
            // One call each, named after the shape of the type as written: no overloads to
            // try, one key path instead of three in a setter.
            let shape = isArrayType ? "ToMany" : isOptionalArrayType ? "ToManyOptional" : isOptionalType ? "ToOptional" : "ToOne"
            result.append("get { self._$get\(shape)(\(keyPath)) }")
            result.append("set { self._$set\(shape)(\(keyPath), newValue) }")
        case .attribute where !usesUnwrappedStorage:
            if initializer != nil || inSubclass {
                result.append("""
                    @storageRestrictions(initializes: \(storageName))
                    init(initialValue) {
                        self.\(storageName) = initialValue
                    }
                    """)
            }
            result.append("""
                get {
                    self._$access(\(keyPath))
                    return self.\(storageName)
                }
                """)
            result.append("set { self._$write(\(keyPath), newValue, &self.\(storageName)) }")
        case .attribute, .undecided:
            let unwrapped = usesUnwrappedStorage ? "Unwrapped" : ""
            if initializer != nil {
                result.append("""
                    @storageRestrictions(initializes: \(storageName))
                    init(initialValue) {
                        self.\(storageName) = initialValue
                    }
                    """)
            }
            result.append("get { self._$get\(unwrapped)(\(keyPath), self.\(storageName)) }")
            result.append("set { self._$set\(unwrapped)(\(keyPath), newValue, storage: \\\(root ?? "")._\(name)) }")
        }
        return result
    }
}

// MARK: - Reading a property

enum PropertyAnalysis {
    /// The persisted property a member declares, or nil when it isn't one (static, computed,
    /// `@Transient`, not a variable). Misuse is reported through `diagnose` when given.
    static func analyze(_ member: some DeclSyntaxProtocol, diagnose: ((Diagnostic) -> Void)? = nil) -> PersistedProperty? {
        guard let variable = member.as(VariableDeclSyntax.self) else { return nil }
        if variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { return nil }
        if hasAttribute(variable, named: "Transient") { return nil }
        guard let binding = variable.bindings.first, let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { return nil }
        let name = identifier.identifier.trimmedDescription
        if name.hasPrefix("_$") || name == "persistentBackingData" { return nil }
        // The backing storage `@Model` generates (`@exclusivity(unchecked) private var _front`).
        if name.hasPrefix("_"), hasAttribute(variable, named: "exclusivity"),
           variable.modifiers.contains(where: { $0.name.text == "private" }) { return nil }
        if let accessors = binding.accessorBlock {
            // A computed property (or one with observers, which @Model can't keep).
            if case .accessors(let list) = accessors.accessors,
               list.contains(where: { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }) {
                diagnose?(Diagnostic(node: Syntax(accessors), message: ModelDiagnostic.observers(name)))
            }
            return nil
        }
        if variable.bindings.count > 1 {
            diagnose?(Diagnostic(node: Syntax(variable), message: ModelDiagnostic.multipleBindings))
            return nil
        }
        if variable.modifiers.contains(where: { $0.name.text == "lazy" }) {
            diagnose?(Diagnostic(node: Syntax(variable), message: ModelDiagnostic.lazy(name)))
            return nil
        }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            diagnose?(Diagnostic(node: Syntax(variable.bindingSpecifier), message: ModelDiagnostic.letProperty(name), fixIts: [
                FixIt(message: ModelFixIt.useVar, changes: [.replace(oldNode: Syntax(variable.bindingSpecifier),
                                                                    newNode: Syntax(TokenSyntax.keyword(.var, trailingTrivia: .space)))]),
            ]))
            return nil
        }
        let type = binding.typeAnnotation?.type
        let initializer = binding.initializer?.value
        if type == nil && initializer == nil { return nil }
        if let type, let reason = unsupportedReason(type) {
            diagnose?(Diagnostic(node: Syntax(type), message: ModelDiagnostic.unsupportedType(name, type.trimmedDescription, reason), fixIts: [
                FixIt(message: ModelFixIt.markTransient, changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(transientVersion(of: variable)))]),
            ]))
            return nil
        }

        var attributeOptions: [ExprSyntax] = []
        var originalName: ExprSyntax?
        var isEphemeral = false
        var deleteRule: ExprSyntax?, inverse: ExprSyntax?, minimum: ExprSyntax?, maximum: ExprSyntax?
        let relationshipAttribute = attribute(variable, named: "Relationship")
        if let attribute = attribute(variable, named: "Attribute") {
            for argument in arguments(of: attribute) {
                switch argument.label?.text {
                case nil:
                    if memberName(argument.expression) == "ephemeral" { isEphemeral = true } else { attributeOptions.append(argument.expression) }
                case "originalName": originalName = argument.expression
                default: break  // hashModifier: a migration hint this store doesn't need
                }
            }
            if relationshipAttribute != nil {
                diagnose?(Diagnostic(node: Syntax(attribute), message: ModelDiagnostic.attributeOnRelationship(name)))
            }
        }
        if let relationship = relationshipAttribute {
            for argument in arguments(of: relationship) {
                switch argument.label?.text {
                case nil:
                    // `@Relationship(.cascade)`: the delete rule as a leading option (early SwiftData).
                    if let rule = memberName(argument.expression), ["cascade", "nullify", "deny", "noAction"].contains(rule) {
                        deleteRule = ExprSyntax(stringLiteral: ".\(rule)")
                    }
                case "deleteRule": deleteRule = argument.expression
                case "inverse": inverse = argument.expression
                case "minimumModelCount": minimum = argument.expression
                case "maximumModelCount": maximum = argument.expression
                case "originalName": originalName = argument.expression
                default: break
                }
            }
            if let type {
                let destination = destinationName(of: type)
                if knownType(TypeSyntax(stringLiteral: destination)) != nil {
                    diagnose?(Diagnostic(node: Syntax(type), message: ModelDiagnostic.relationshipToValue(name, destination), fixIts: [
                        FixIt(message: ModelFixIt.removeRelationship, changes: [.replace(oldNode: Syntax(relationship), newNode: Syntax(AttributeSyntax(stringLiteral: "")))]),
                    ]))
                    return nil
                }
                if let inverse, let keyPath = inverse.as(KeyPathExprSyntax.self), let root = keyPath.root, root.trimmedDescription != destination {
                    let fixed = keyPath.with(\.root, TypeSyntax(stringLiteral: destination))
                    diagnose?(Diagnostic(node: Syntax(root), message: ModelDiagnostic.inverseRoot(name, root.trimmedDescription, destination), fixIts: [
                        FixIt(message: ModelFixIt.inverseRoot(destination), changes: [.replace(oldNode: Syntax(keyPath), newNode: Syntax(fixed))]),
                    ]))
                    return nil
                }
            } else {
                diagnose?(Diagnostic(node: Syntax(binding), message: ModelDiagnostic.relationshipNeedsType(name)))
                return nil
            }
        }

        let kind: PersistedProperty.Kind
        if relationshipAttribute != nil {
            kind = .relationship
        } else if let type, let known = knownType(type) {
            kind = .attribute(known)
        } else {
            kind = .undecided
        }
        return PersistedProperty(name: name, type: type, initializer: initializer, kind: kind, attributeOptions: attributeOptions,
                                 originalName: originalName, isEphemeral: isEphemeral, deleteRule: deleteRule, inverse: inverse,
                                 minimumModelCount: minimum, maximumModelCount: maximum)
    }

    static func hasAttribute(_ variable: VariableDeclSyntax, named name: String) -> Bool { attribute(variable, named: name) != nil }

    static func attribute(_ variable: VariableDeclSyntax, named name: String) -> AttributeSyntax? {
        for element in variable.attributes {
            guard case .attribute(let attribute) = element else { continue }
            let written = attribute.attributeName.trimmedDescription
            if written == name || written.hasSuffix(".\(name)") { return attribute }
        }
        return nil
    }

    static func arguments(of attribute: AttributeSyntax) -> LabeledExprListSyntax {
        if case .argumentList(let list)? = attribute.arguments { return list }
        return []
    }

    /// `unique` for `.unique` or `Schema.Attribute.Option.unique`.
    static func memberName(_ expression: ExprSyntax) -> String? {
        if let member = expression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
        if let call = expression.as(FunctionCallExprSyntax.self) { return memberName(call.calledExpression) }
        return nil
    }

    private static func transientVersion(of variable: VariableDeclSyntax) -> VariableDeclSyntax {
        var attributes = variable.attributes
        attributes.append(.attribute(AttributeSyntax(stringLiteral: "@Transient ")))
        return variable.with(\.attributes, attributes)
    }
}

// MARK: - Types, as written

private let columnTypes: [String: String?] = [
    "String": "\"\"", "Bool": "false", "Double": "0", "Float": "0", "Decimal": "0",
    "Int": "0", "Int8": "0", "Int16": "0", "Int32": "0", "Int64": "0",
    "UInt": "0", "UInt8": "0", "UInt16": "0", "UInt32": "0", "UInt64": "0",
    "Date": "Foundation.Date(timeIntervalSinceReferenceDate: 0)", "Data": "Foundation.Data()",
    "UUID": "Foundation.UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))",
    "URL": String?.none,
]

/// The name without a module qualifier (`Foundation.Date` is `Date`).
private func bareName(_ type: TypeSyntax) -> String? {
    if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil { return identifier.name.text }
    if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil,
       ["Swift", "Foundation"].contains(member.baseType.trimmedDescription) { return member.name.text }
    return nil
}

func genericArguments(_ type: TypeSyntax, named name: String) -> [TypeSyntax]? {
    if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name, let clause = identifier.genericArgumentClause {
        return clause.arguments.compactMap { $0.argument.as(TypeSyntax.self) }
    }
    if let member = type.as(MemberTypeSyntax.self), member.name.text == name, member.baseType.trimmedDescription == "Swift",
       let clause = member.genericArgumentClause {
        return clause.arguments.compactMap { $0.argument.as(TypeSyntax.self) }
    }
    return nil
}

func optionalWrapped(_ type: TypeSyntax) -> TypeSyntax? {
    if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
    if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unwrapped.wrappedType }
    if let arguments = genericArguments(type, named: "Optional"), arguments.count == 1 { return arguments[0] }
    return nil
}

func isOptional(_ type: TypeSyntax) -> Bool { optionalWrapped(type) != nil }

func arrayElement(of type: TypeSyntax) -> TypeSyntax? {
    if let array = type.as(ArrayTypeSyntax.self) { return array.element }
    if let arguments = genericArguments(type, named: "Array"), arguments.count == 1 { return arguments[0] }
    return nil
}

func isDictionary(_ type: TypeSyntax) -> Bool {
    type.is(DictionaryTypeSyntax.self) || genericArguments(type, named: "Dictionary") != nil
}

/// The destination model's name of a relationship type (`Trip` for `[Trip]`, `Trip?`).
func destinationName(of type: TypeSyntax) -> String {
    if let wrapped = optionalWrapped(type) { return destinationName(of: wrapped) }
    if let element = arrayElement(of: type) { return destinationName(of: element) }
    if let set = genericArguments(type, named: "Set"), set.count == 1 { return destinationName(of: set[0]) }
    return type.trimmedDescription
}

/// How a type the macro recognises is stored, or nil for any other type.
func knownType(_ type: TypeSyntax) -> PersistedProperty.KnownType? {
    if let wrapped = optionalWrapped(type) {
        guard let inner = knownType(wrapped) else { return nil }
        return PersistedProperty.KnownType(isColumnValue: inner.isColumnValue, placeholder: "nil")
    }
    if let name = bareName(type), let placeholder = columnTypes[name] {
        return PersistedProperty.KnownType(isColumnValue: true, placeholder: placeholder)
    }
    if let element = arrayElement(of: type) {
        return knownType(element).map { _ in PersistedProperty.KnownType(isColumnValue: false, placeholder: "[]") }
    }
    if let set = genericArguments(type, named: "Set"), set.count == 1 {
        return knownType(set[0]).map { _ in PersistedProperty.KnownType(isColumnValue: false, placeholder: "[]") }
    }
    if let dictionary = type.as(DictionaryTypeSyntax.self) {
        guard knownType(dictionary.key) != nil, knownType(dictionary.value) != nil else { return nil }
        return PersistedProperty.KnownType(isColumnValue: false, placeholder: "[:]")
    }
    return nil
}

/// Why a property of this type can't be stored, or nil when it may be.
private func unsupportedReason(_ type: TypeSyntax) -> String? {
    if let wrapped = optionalWrapped(type) { return unsupportedReason(wrapped) }
    if type.is(FunctionTypeSyntax.self) { return "a function can't be stored" }
    if type.is(TupleTypeSyntax.self) { return "a tuple can't be stored; use a Codable struct" }
    if type.is(SomeOrAnyTypeSyntax.self) || ["Any", "AnyObject"].contains(type.trimmedDescription) {
        return "a value of unknown type can't be stored; use a concrete Codable type"
    }
    if let attributed = type.as(AttributedTypeSyntax.self) { return unsupportedReason(attributed.baseType) }
    if let element = arrayElement(of: type) { return unsupportedReason(element) }
    return nil
}
