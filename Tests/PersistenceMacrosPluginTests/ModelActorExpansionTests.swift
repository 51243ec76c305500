import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing
@testable import PersistenceMacrosPlugin

@Suite struct ModelActorExpansionTests {
    static func expand(_ source: String) -> (source: String, diagnostics: [String]) {
        let file = Parser.parse(source: source)
        let context = BasicMacroExpansionContext(sourceFiles: [file: .init(moduleName: "Models", fullFilePath: "Models.swift")])
        let specs = ["ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"])]
        let expanded = file.expand(macroSpecs: specs, contextGenerator: { BasicMacroExpansionContext(sharingWith: context, lexicalContext: $0.allMacroLexicalContexts()) })
        let converter = SourceLocationConverter(fileName: "Models.swift", tree: file)
        let diagnostics = context.diagnostics.map { "\($0.location(converter: converter).line):\($0.location(converter: converter).column): \($0.message)" }
        return (expanded.description, diagnostics)
    }

    @Test func anActorGainsAContainerAnExecutorAnInitializerAndTheConformance() {
        let result = Self.expand("@ModelActor actor Importer {\n    func run() {}\n}\n")
        #expect(result.diagnostics.isEmpty)
        #expect(result.source == """
            actor Importer {
                func run() {}

                nonisolated let modelExecutor: any Persistence.ModelExecutor

                nonisolated let modelContainer: Persistence.ModelContainer

                init(modelContainer: Persistence.ModelContainer) {
                    let modelContext = Persistence.ModelContext(modelContainer)
                    self.modelExecutor = Persistence.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Importer: Persistence.ModelActor {}

            """)
    }

    @Test func aPublicActorGetsPublicMembersAndKeepsWhatItDeclares() {
        let source = """
            @ModelActor public actor Importer {
                public nonisolated let modelContainer: ModelContainer
                public init(modelContainer: ModelContainer) { fatalError() }
            }
            """
        let result = Self.expand(source)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains("public nonisolated let modelExecutor: any Persistence.ModelExecutor"))
        #expect(!result.source.contains("nonisolated let modelContainer: Persistence.ModelContainer"))
        #expect(!result.source.contains("init(modelContainer: Persistence.ModelContainer)"))
    }

    @Test(arguments: [("class", "a class"), ("struct", "a struct"), ("enum", "an enum")])
    func onlyAnActorTakesIt(keyword: String, kind: String) {
        let result = Self.expand("@ModelActor \(keyword) Importer {}\n")
        #expect(result.diagnostics == [
            "1:1: @ModelActor applies to an actor; this is \(kind) (the actor's executor is what keeps its context on one job at a time)",
        ])
        #expect(!result.source.contains("modelExecutor"))
    }
}
