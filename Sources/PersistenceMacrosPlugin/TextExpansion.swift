@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftDiagnostics
import SwiftIfConfig
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros

/// `@Model`'s and `@_PersistedProperty`'s expansions answered as text, for the requests a
/// module of models sends most (member, member attribute, accessor and extension roles).
///
/// The compiler reads an expansion back as source text. Through swift-syntax, a request
/// parses the attribute, the declaration, its parent and every lexical context, and the
/// macro's text is parsed into nodes only to be printed again: of the plugin's ~2.7 G
/// instructions for a module of 50 model pairs, 37 % went to parsing the macros' own output
/// and 21 % to the request's syntax. Here only the declaration (and the small lexical
/// context) is parsed, and the macro's text is sent as it is, joined as swift-syntax joins
/// it (`collapse`). A request whose expansion diagnoses anything returns nil and goes
/// through swift-syntax, which places the diagnostics and their fix-its.
///
/// Parses are kept by source text: the extension request of a class carries the class the
/// member request did (a whole class is ~3 M instructions to parse), and the accessor request
/// of a property the property and the class skeleton its member-attribute request did. Trees
/// here are read for their text only, so one parse serves every request of the same text.
final class TextExpansion {
    private var parsed: [String: DeclSyntax] = [:]

    func expand(
        macro typeName: String, role: PluginMessage.MacroRole, declaration: String, lexicalContext: [String],
        extendedType: String?, conformances: String?
    ) -> String? {
        let context = RecordingContext(lexicalContext: lexicalContext.map { Syntax(parseDeclaration($0)) })
        let node = parseDeclaration(declaration)
        let expansions: [String]
        let collapsedRole: MacroRole
        switch (typeName, role) {
        case ("ModelMacro", .member):
            guard let group = node.asProtocol(DeclGroupSyntax.self) else { return nil }
            expansions = ModelMacro.memberSources(of: group, in: context)
            collapsedRole = .member
        case ("ModelMacro", .memberAttribute):
            // The class the member belongs to is the innermost lexical context (sent without
            // its members, which this doesn't read).
            guard let group = context.lexicalContext.first?.asProtocol(DeclGroupSyntax.self) else { return nil }
            expansions = ModelMacro.memberAttributeSources(attachedTo: group, member: node)
            collapsedRole = .memberAttribute
        case ("ModelMacro", .extension):
            guard let group = node.asProtocol(DeclGroupSyntax.self), let extendedType, let conformances,
                  let placeholder = parseDeclaration(conformances).as(StructDeclSyntax.self) else { return nil }
            let protocols = placeholder.inheritanceClause?.inheritedTypes.map(\.type.trimmedDescription) ?? []
            expansions = ModelMacro.extensionSources(attachedTo: group, type: extendedType.trimmingSpaces, conformingTo: protocols)
            collapsedRole = .extension
        case ("PersistedPropertyMacro", .accessor):
            expansions = PersistedPropertyMacro.accessorSources(of: node, in: context)
            collapsedRole = .accessor
        default:
            return nil
        }
        if context.hasDiagnostics { return nil }
        return collapse(expansions: expansions, for: collapsedRole, attachedTo: node, indentationWidth: Trivia())
    }

    private func parseDeclaration(_ source: String) -> DeclSyntax {
        if let tree = parsed[source] { return tree }
        // A module's worth of declarations is a few hundred kilobytes of trees; past that the
        // cache starts again rather than grow with a very large module.
        if parsed.count >= 4096 { parsed.removeAll(keepingCapacity: true) }
        var parser = Parser(source)
        let tree = DeclSyntax.parse(from: &parser)
        parsed[source] = tree
        return tree
    }

    /// A context that only records whether a diagnostic was made (the text path is taken
    /// only when none was).
    final class RecordingContext: MacroExpansionContext {
        let lexicalContext: [Syntax]
        private(set) var hasDiagnostics = false

        init(lexicalContext: [Syntax]) {
            self.lexicalContext = lexicalContext
        }

        var buildConfiguration: (any BuildConfiguration)? { nil }

        func makeUniqueName(_ name: String) -> TokenSyntax { .identifier("__macro_local_\(name)") }

        func diagnose(_ diagnostic: Diagnostic) { hasDiagnostics = true }

        func location(of node: some SyntaxProtocol, at position: PositionInSyntaxNode, filePathMode: SourceLocationFilePathMode) -> AbstractSourceLocation? {
            nil
        }
    }
}

private extension String {
    var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
