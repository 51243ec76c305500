import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@ModelActor actor Importer { … }`: what SwiftData's macro of that name gives an actor, a
/// model container, a serial executor over a context of its own, `init(modelContainer:)` and
/// the `ModelActor` conformance, so the actor's work runs on its context one job at a time.
///
/// The members take the actor's access level (a public actor's conformance needs public
/// witnesses), and an actor that declares `modelContainer`, `modelExecutor` or that
/// initializer itself keeps its own.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static var formatMode: FormatMode { .disabled }

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actor = declaration.as(ActorDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: Syntax(node), message: ModelActorDiagnostic.notAnActor(kind(of: declaration))))
            return []
        }
        let modifiers = actor.modifiers.map(\.name.text)
        let access = modifiers.first(where: { ["public", "package"].contains($0) }).map { "\($0) " } ?? ""
        let declared = Declared(actor.memberBlock)
        var members: [DeclSyntax] = []
        if !declared.names.contains("modelExecutor") {
            members.append("\(raw: access)nonisolated let modelExecutor: any Persistence.ModelExecutor")
        }
        if !declared.names.contains("modelContainer") {
            members.append("\(raw: access)nonisolated let modelContainer: Persistence.ModelContainer")
        }
        if !declared.containerInitializer {
            members.append("""
                \(raw: access)init(modelContainer: Persistence.ModelContainer) {
                    let modelContext = Persistence.ModelContext(modelContainer)
                    self.modelExecutor = Persistence.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
                """)
        }
        return members
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): Persistence.ModelActor {}")]
    }

    private static func kind(of declaration: some DeclGroupSyntax) -> String {
        if declaration.is(ClassDeclSyntax.self) { return "a class" }
        if declaration.is(StructDeclSyntax.self) { return "a struct" }
        if declaration.is(EnumDeclSyntax.self) { return "an enum" }
        if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
        return "an extension"
    }

    /// What the actor declares itself, of the members the macro would add.
    private struct Declared {
        var names: Set<String> = []
        var containerInitializer = false

        init(_ block: MemberBlockSyntax) {
            for member in block.members {
                if let variable = member.decl.as(VariableDeclSyntax.self) {
                    for binding in variable.bindings {
                        if let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text { names.insert(name) }
                    }
                } else if let initializer = member.decl.as(InitializerDeclSyntax.self) {
                    let labels = initializer.signature.parameterClause.parameters.map(\.firstName.text)
                    if labels == ["modelContainer"] { containerInitializer = true }
                }
            }
        }
    }
}

enum ModelActorDiagnostic: DiagnosticMessage {
    case notAnActor(String)

    var message: String {
        switch self {
        case .notAnActor(let kind):
            "@ModelActor applies to an actor; this is \(kind) (the actor's executor is what keeps its context on one job at a time)"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "PersistenceMacros", id: "modelActorNotAnActor") }
    var severity: DiagnosticSeverity { .error }
}
