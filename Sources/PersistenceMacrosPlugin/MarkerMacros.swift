import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute`, `@Relationship` and `@Transient` generate nothing themselves: `@Model`
/// reads them from the property's syntax.
public struct MarkerMacro: PeerMacro {
    /// The expansion is empty: nothing to format.
    public static var formatMode: FormatMode { .disabled }

    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

/// `#Unique<Model>([...], ...)`, `#Index<Model>([...], ...)` and `#UniqueIndex<Model>([...], ...)` inside a model class: `@Model`
/// turns them into schema lines; the expansion itself declares nothing.
public struct ConstraintMacro: DeclarationMacro {
    public static var formatMode: FormatMode { .disabled }

    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        for argument in node.arguments {
            let isKeyPathArray = argument.expression.as(ArrayExprSyntax.self)?.elements.allSatisfy { $0.expression.is(KeyPathExprSyntax.self) } ?? false
            if !isKeyPathArray {
                context.diagnose(Diagnostic(node: Syntax(argument), message: ModelDiagnostic.keyPathsExpected(node.macroName.text)))
            }
        }
        return []
    }
}
