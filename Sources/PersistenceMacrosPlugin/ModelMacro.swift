import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class a persistent, observable model.
///
/// It marks each stored property `@_PersistedProperty` (accessors over backing storage or
/// over the relationship machinery), and adds what a hand-written model spells out:
/// the backing storage of each attribute (`_front`), `schemaMetadata` (one line per
/// property, plus `#Unique` and `#Index` constraints), `persistentBackingData`, an empty
/// `init()` the context makes rows with, and the `PersistentModel` and `Observable`
/// conformances.
///
/// The storage comes from here rather than from a peer macro on each property: one plugin
/// request and one expansion buffer per model instead of one per property, which is most
/// of what a module of models costs to build beyond the same classes written by hand.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    /// The generated code is written already laid out; swift-syntax's formatter pass would
    /// only cost plugin time.
    public static var formatMode: FormatMode { .disabled }

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        memberSources(of: declaration, in: context).map { DeclSyntax("\(raw: $0)") }
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        memberAttributeSources(attachedTo: declaration, member: member).map { AttributeSyntax("\(raw: $0)") }
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        extensionSources(attachedTo: declaration, type: type.trimmedDescription, conformingTo: protocols.map(\.trimmedDescription))
            .map { DeclSyntax("\(raw: $0)").cast(ExtensionDeclSyntax.self) }
    }

    // The expansions as source text: swift-syntax parses them into the nodes above, and the
    // plugin's fast path (`ModelPluginMessageHandler`) sends them to the compiler as they are,
    // since the compiler only reads the text back.

    /// The members added to the class: backing storage, `schemaMetadata`,
    /// `persistentBackingData`, `init()`.
    static func memberSources(of declaration: some DeclGroupSyntax, in context: some MacroExpansionContext) -> [String] {
        guard let model = ModelClass(declaration, context: context) else { return [] }
        var members = model.storageDeclarations()
        let lines = model.metadataLines(context: context)
        let type = "[Persistence.Schema.PropertyMetadata]"
        let body = lines.isEmpty ? "[]" : "[\n" + lines.map { "    \($0)," }.joined(separator: "\n") + "\n]"
        if !model.declares("schemaMetadata") {
            if model.isFinal && !model.isSubclass {
                members.append("\(model.access)static let schemaMetadata: \(type) = \(body)")
            } else {
                members.append("private static let _$schemaMetadata: \(type) = \(body)")
                let inherited = model.isSubclass ? "super.schemaMetadata + " : ""
                let override = model.isSubclass ? "override " : ""
                members.append("\(model.overridableAccess)\(override)class var schemaMetadata: \(type) { \(inherited)\(model.name)._$schemaMetadata }")
            }
        }
        if !model.isSubclass && !model.declares("persistentBackingData") {
            members.append("\(model.access)let persistentBackingData = Persistence.BackingData()")
        }
        if !model.declaresEmptyInitializer {
            if model.isSubclass {
                // A subclass that declares no initializer inherits `init()` (and the others).
                if model.declaresInitializer {
                    members.append("\(model.access)required init() { super.init() }")
                }
            } else {
                members.append("\(model.access)\(model.isFinal ? "" : "required ")init() {}")
            }
        }
        return members
    }

    /// `@_PersistedProperty` on a stored property of the class (nothing on other members).
    static func memberAttributeSources(attachedTo declaration: some DeclGroupSyntax, member: some DeclSyntaxProtocol) -> [String] {
        guard declaration.is(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
              PropertyAnalysis.analyze(variable) != nil,
              !PropertyAnalysis.hasAttribute(variable, named: "_PersistedProperty") else { return [] }
        return ["@_PersistedProperty"]
    }

    /// The extension adding the conformances the compiler asks for (`type` and `protocols`
    /// as written).
    static func extensionSources(attachedTo declaration: some DeclGroupSyntax, type: String, conformingTo protocols: [String]) -> [String] {
        // A model subclass inherits both conformances (the compiler asks for none then, and
        // the syntax says so even when it is asked).
        guard let model = declaration.as(ClassDeclSyntax.self), !protocols.isEmpty,
              !(model.inheritanceClause?.inheritedTypes.first.map { ModelClass.isSuperclass($0.type) } ?? false) else { return [] }
        return ["extension \(type): \(protocols.joined(separator: ", ")) {}"]
    }
}

/// The class `@Model` is attached to, as far as its syntax tells.
struct ModelClass {
    let declaration: ClassDeclSyntax
    let name: String
    let isFinal: Bool
    let isSubclass: Bool
    /// The access modifier (with a trailing space) of generated members.
    let access: String
    /// The same for an overridable member of an open class.
    let overridableAccess: String

    init?(_ group: some DeclGroupSyntax, context: some MacroExpansionContext) {
        guard let declaration = group.as(ClassDeclSyntax.self) else {
            Self.diagnoseNotAClass(group, context: context)
            return nil
        }
        self.declaration = declaration
        name = declaration.name.text
        let modifiers = declaration.modifiers.map(\.name.text)
        isFinal = modifiers.contains("final")
        if modifiers.contains("open") {
            (access, overridableAccess) = ("public ", "open ")
        } else if let level = modifiers.first(where: { ["public", "package"].contains($0) }) {
            (access, overridableAccess) = ("\(level) ", "\(level) ")
        } else {
            (access, overridableAccess) = ("", "")
        }
        isSubclass = declaration.inheritanceClause?.inheritedTypes.first.map { Self.isSuperclass($0.type) } ?? false
    }

    /// Whether the first inherited type names a class rather than a protocol. A macro can't
    /// look the name up, so the protocols a model commonly adopts are recognised by name.
    static func isSuperclass(_ type: TypeSyntax) -> Bool {
        let name = type.trimmedDescription.split(separator: ".").last.map(String.init) ?? ""
        let protocols: Set<String> = [
            "PersistentModel", "Identifiable", "Hashable", "Equatable", "Comparable", "Codable", "Encodable", "Decodable",
            "Sendable", "CustomStringConvertible", "CustomDebugStringConvertible", "Observable", "ObservableObject",
            "WillSaveHook", "AnyObject", "Transferable", "CaseIterable",
        ]
        if protocols.contains(name) { return false }
        return !(name.hasSuffix("Protocol") || name.hasSuffix("Convertible") || name.hasSuffix("Representable"))
    }

    private static func diagnoseNotAClass(_ group: some DeclGroupSyntax, context: some MacroExpansionContext) {
        if let structure = group.as(StructDeclSyntax.self) {
            let keyword = structure.structKeyword
            let replacement = TokenSyntax.identifier("final class", leadingTrivia: keyword.leadingTrivia, trailingTrivia: keyword.trailingTrivia)
            context.diagnose(Diagnostic(node: Syntax(keyword), message: ModelDiagnostic.notAClass("a struct"), fixIts: [
                FixIt(message: ModelFixIt.makeFinalClass, changes: [.replace(oldNode: Syntax(keyword), newNode: Syntax(replacement))]),
            ]))
        } else {
            let kind = group.is(EnumDeclSyntax.self) ? "an enum" : group.is(ActorDeclSyntax.self) ? "an actor"
                : group.is(ProtocolDeclSyntax.self) ? "a protocol" : "an extension"
            context.diagnose(Diagnostic(node: Syntax(group), message: ModelDiagnostic.notAClass(kind)))
        }
    }

    private var members: [DeclSyntax] { declaration.memberBlock.members.map(\.decl) }

    /// The backing storage of every stored attribute, in declaration order.
    func storageDeclarations() -> [String] {
        members.compactMap { member in
            guard let variable = member.as(VariableDeclSyntax.self) else { return nil }
            return PropertyAnalysis.analyze(variable)?.storageDeclaration()
        }
    }

    /// The root `@_PersistedProperty` writes in its key paths: the name of the class the
    /// property belongs to, or nil for a generic class (whose key paths keep the inferred
    /// root, since the macro doesn't know the class's arguments).
    static func keyPathRoot(in context: some MacroExpansionContext) -> String? {
        for syntax in context.lexicalContext {
            guard let enclosing = syntax.as(ClassDeclSyntax.self) else { continue }
            return enclosing.genericParameterClause == nil ? enclosing.name.text : nil
        }
        return nil
    }

    /// Whether the property's class is a model subclass (its first inherited type a class).
    static func isInSubclass(_ context: some MacroExpansionContext) -> Bool {
        for syntax in context.lexicalContext {
            guard let enclosing = syntax.as(ClassDeclSyntax.self) else { continue }
            return enclosing.inheritanceClause?.inheritedTypes.first.map { isSuperclass($0.type) } ?? false
        }
        return false
    }

    func declares(_ property: String) -> Bool {
        members.contains { member in
            member.as(VariableDeclSyntax.self)?.bindings.contains { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == property } ?? false
        }
    }

    var declaresInitializer: Bool { members.contains { $0.is(InitializerDeclSyntax.self) } }

    var declaresEmptyInitializer: Bool {
        members.contains { $0.as(InitializerDeclSyntax.self)?.signature.parameterClause.parameters.isEmpty ?? false }
    }

    /// The schema lines: properties in declaration order, then `#Unique` and `#Index`.
    func metadataLines(context: some MacroExpansionContext) -> [String] {
        var lines: [String] = []
        var constraints: [String] = []
        for member in members {
            if let variable = member.as(VariableDeclSyntax.self) {
                if PropertyAnalysis.hasAttribute(variable, named: "Transient"), let binding = variable.bindings.first,
                   binding.initializer == nil, binding.accessorBlock == nil,
                   !(binding.typeAnnotation.map { isOptional($0.type) } ?? false) {
                    let name = binding.pattern.trimmedDescription
                    context.diagnose(Diagnostic(node: Syntax(binding), message: ModelDiagnostic.transientNeedsValue(name)))
                    continue
                }
                if let property = PropertyAnalysis.analyze(variable, diagnose: { context.diagnose($0) }),
                   let line = property.metadataLine(className: name) {
                    lines.append(line)
                }
            } else if let expansion = member.as(MacroExpansionDeclSyntax.self),
                      ["Unique", "Index", "UniqueIndex"].contains(expansion.macroName.text) {
                let factory = ["Unique": "unique", "UniqueIndex": "uniqueIndex"][expansion.macroName.text] ?? "index"
                for argument in expansion.arguments {
                    guard let array = argument.expression.as(ArrayExprSyntax.self) else { continue }
                    let paths = array.elements.compactMap { element -> String? in
                        guard let keyPath = element.expression.as(KeyPathExprSyntax.self) else { return nil }
                        if keyPath.root != nil { return keyPath.trimmedDescription }
                        return "\\\(name)\(keyPath.components.trimmedDescription)"
                    }
                    if !paths.isEmpty { constraints.append(".\(factory)(\(paths.joined(separator: ", ")))") }
                }
            }
        }
        return lines + constraints
    }
}
