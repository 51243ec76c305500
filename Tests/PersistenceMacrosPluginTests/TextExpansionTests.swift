import Foundation
@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing
@testable import PersistenceMacrosPlugin

/// The plugin answers `@Model`'s and `@_PersistedProperty`'s requests with their text
/// (`TextExpansion`); the compiler must receive what swift-syntax's expansion would have sent,
/// byte for byte, and a request whose expansion diagnoses anything must go through swift-syntax.
@Suite struct TextExpansionTests {
    /// The classes of the expansion snapshots, with the source text the compiler sends.
    static func classes(_ snapshot: String) throws -> [ClassDeclSyntax] {
        let source = try String(contentsOf: ExpansionTests.snapshots.appendingPathComponent("\(snapshot).swift.txt"), encoding: .utf8)
        return Parser.parse(source: source).statements.compactMap { $0.item.as(ClassDeclSyntax.self) }
    }

    /// swift-syntax's answer to one request, as the plugin's message handler gets it.
    static func swiftSyntaxExpansion(
        _ macro: Macro.Type, role: MacroRole, attribute: String, node: some SyntaxProtocol, parent: DeclSyntax? = nil,
        lexicalContext: [Syntax], extendedType: TypeSyntax? = nil, conformances: InheritedTypeListSyntax? = nil
    ) -> String? {
        expandAttachedMacro(definition: macro, macroRole: role, attributeNode: AttributeSyntax(stringLiteral: attribute),
                            node: node, parentDeclNode: parent, extendedType: extendedType, conformanceList: conformances,
                            in: BasicMacroExpansionContext(lexicalContext: lexicalContext), indentationWidth: Trivia())
    }

    /// The class without its members, as the compiler sends a lexical context.
    static func skeleton(_ model: ClassDeclSyntax) -> ClassDeclSyntax {
        model.with(\.memberBlock, MemberBlockSyntax(members: []))
    }

    @Test(arguments: ["FinalClass", "Hierarchy", "Relationships", "Constraints", "Transformable"])
    func textIsWhatSwiftSyntaxSends(snapshot: String) throws {
        let text = TextExpansion()
        for model in try Self.classes(snapshot) {
            let skeleton = Syntax(Self.skeleton(model))
            let member = text.expand(macro: "ModelMacro", role: .member, declaration: model.description, lexicalContext: [],
                                     extendedType: nil, conformances: nil)
            #expect(member?.contains("schemaMetadata") == true, "no members for \(model.name.text)")
            #expect(member == Self.swiftSyntaxExpansion(ModelMacro.self, role: .member, attribute: "@Model", node: model, lexicalContext: []),
                    "members of \(model.name.text)")

            let conformances = try #require(DeclSyntax("struct Placeholder: PersistentModel, Observable {}").as(StructDeclSyntax.self))
            let extended = text.expand(macro: "ModelMacro", role: .extension, declaration: model.description, lexicalContext: [],
                                       extendedType: model.name.text, conformances: conformances.description)
            #expect(extended == Self.swiftSyntaxExpansion(ModelMacro.self, role: .extension, attribute: "@Model", node: model,
                                                          lexicalContext: [], extendedType: TypeSyntax(stringLiteral: model.name.text),
                                                          conformances: conformances.inheritanceClause?.inheritedTypes),
                    "extension of \(model.name.text)")

            for item in model.memberBlock.members {
                let attribute = text.expand(macro: "ModelMacro", role: .memberAttribute, declaration: item.decl.description,
                                            lexicalContext: [skeleton.description], extendedType: nil, conformances: nil)
                let expected = Self.swiftSyntaxExpansion(ModelMacro.self, role: .memberAttribute, attribute: "@Model", node: item.decl,
                                                         parent: DeclSyntax(model), lexicalContext: [skeleton])
                #expect(attribute == expected, "attribute of \(item.decl.trimmedDescription)")
                guard expected == "@_PersistedProperty", let variable = item.decl.as(VariableDeclSyntax.self) else { continue }
                let accessors = text.expand(macro: "PersistedPropertyMacro", role: .accessor, declaration: variable.description,
                                            lexicalContext: [skeleton.description], extendedType: nil, conformances: nil)
                #expect(accessors?.contains("get {") == true, "no accessors for \(variable.trimmedDescription)")
                #expect(accessors == Self.swiftSyntaxExpansion(PersistedPropertyMacro.self, role: .accessor, attribute: "@_PersistedProperty",
                                                               node: variable, lexicalContext: [skeleton]),
                        "accessors of \(variable.trimmedDescription)")
            }
        }
    }

    @Test func aDiagnosedExpansionGoesThroughSwiftSyntax() {
        let text = TextExpansion()
        // A struct (diagnosed with a fix-it) and a `let` property (diagnosed by the schema lines).
        #expect(text.expand(macro: "ModelMacro", role: .member, declaration: "@Model struct Card {\n    var front: String\n}",
                            lexicalContext: [], extendedType: nil, conformances: nil) == nil)
        #expect(text.expand(macro: "ModelMacro", role: .member, declaration: "@Model final class Card {\n    let id: UUID\n}",
                            lexicalContext: [], extendedType: nil, conformances: nil) == nil)
        // Roles and macros it doesn't answer.
        #expect(text.expand(macro: "ModelActorMacro", role: .member, declaration: "@ModelActor actor A {}",
                            lexicalContext: [], extendedType: nil, conformances: nil) == nil)
    }
}
