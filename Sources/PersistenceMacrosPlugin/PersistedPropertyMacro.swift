import SwiftSyntax
import SwiftSyntaxMacros

/// `@_PersistedProperty`, which `@Model` puts on each stored property: the accessors over
/// the backing storage (or the relationship). The storage itself is declared by `@Model`
/// with the class's other members, which saves the compiler one plugin request (and one
/// expansion buffer) per property.
public struct PersistedPropertyMacro: AccessorMacro {
    /// The accessors are written already laid out; skipping swift-syntax's formatter pass
    /// saves plugin time on every property of every model.
    public static var formatMode: FormatMode { .disabled }

    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        accessorSources(of: declaration, in: context).map { AccessorDeclSyntax("\(raw: $0)") }
    }

    /// The accessors as source text (see ``ModelMacro/memberSources(of:in:)``).
    static func accessorSources(of declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext) -> [String] {
        PropertyAnalysis.analyze(declaration)?.accessors(root: ModelClass.keyPathRoot(in: context), inSubclass: ModelClass.isInSubclass(context)) ?? []
    }
}
