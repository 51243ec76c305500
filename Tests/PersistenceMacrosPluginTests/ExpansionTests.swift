import Foundation
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing
@testable import PersistenceMacrosPlugin

/// The macros, expanded on source text by swift-syntax's own expansion (as the compiler
/// does), compared with snapshots in `Snapshots/` so that any change in the generated shape
/// is seen; `RECORD_SNAPSHOTS=1 swift test --filter ExpansionTests` re-records them.
@Suite struct ExpansionTests {
    static let specs: [String: MacroSpec] = [
        "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel", "Observable"]),
        "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
        "Attribute": MacroSpec(type: MarkerMacro.self),
        "Relationship": MacroSpec(type: MarkerMacro.self),
        "Transient": MacroSpec(type: MarkerMacro.self),
        "Unique": MacroSpec(type: ConstraintMacro.self),
        "Index": MacroSpec(type: ConstraintMacro.self),
    ]

    /// The expanded source and the diagnostics, as `line:column: message [fix-its]`.
    static func expand(_ source: String) -> (source: String, diagnostics: [String]) {
        let file = Parser.parse(source: source)
        let context = BasicMacroExpansionContext(sourceFiles: [file: .init(moduleName: "Models", fullFilePath: "Models.swift")])
        let expanded = file.expand(macroSpecs: specs, contextGenerator: { BasicMacroExpansionContext(sharingWith: context, lexicalContext: $0.allMacroLexicalContexts()) })
        let converter = SourceLocationConverter(fileName: "Models.swift", tree: file)
        let diagnostics = context.diagnostics.map { diagnostic in
            let location = diagnostic.location(converter: converter)
            let fixIts = diagnostic.fixIts.map { fixIt in
                "fix-it '\(fixIt.message.message)': " + fixIt.changes.map { change in
                    switch change {
                    case .replace(let old, let new): "\(old.trimmedDescription) -> \(new.trimmedDescription)"
                    default: "\(change)"
                    }
                }.joined(separator: "; ")
            }
            return "\(location.line):\(location.column): \(diagnostic.message)" + fixIts.map { " [\($0)]" }.joined()
        }
        return (expanded.description, diagnostics)
    }

    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static func assertSnapshot(_ name: String, _ actual: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let url = snapshots.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil {
            try actual.write(to: url, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "expansion differs from Snapshots/\(name); RECORD_SNAPSHOTS=1 re-records it", sourceLocation: sourceLocation)
    }

    @Test(arguments: ["FinalClass", "Hierarchy", "Relationships", "Constraints", "Transformable"])
    func expansionMatchesSnapshot(name: String) throws {
        let source = try String(contentsOf: Self.snapshots.appendingPathComponent("\(name).swift.txt"), encoding: .utf8)
        let result = Self.expand(source)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        try Self.assertSnapshot("\(name).expanded.txt", result.source)
    }

    @Test func aStructIsRefusedWithAFixIt() {
        let result = Self.expand("@Model struct Card {\n    var front: String\n}\n")
        #expect(result.diagnostics == [
            "1:8: @Model applies to a class; this is a struct (a model has one identity shared by every view of it) [fix-it 'make it a 'final class'': struct -> final class]",
        ])
    }

    @Test func misusedPropertiesAreDiagnosed() {
        let source = """
            @Model final class Trip {
                let id: UUID
                var handler: () -> Void
                var pair: (Int, Int)
                @Relationship var tags: [String] = []
                @Relationship(inverse: \\Activity.trip) var stops: [Stop] = []
                var name: String { didSet { print(name) } }
                var a = 1, b = 2
                @Transient var cache: [String: Int]
                init() {}
            }
            """
        let diagnostics = Self.expand(source).diagnostics
        #expect(diagnostics == [
            "2:5: stored property 'id' of a model must be 'var': the context sets it when it loads a row [fix-it 'replace 'let' with 'var'': let -> var]",
            "3:18: property 'handler' of type '() -> Void' can't be stored: a function can't be stored [fix-it 'mark it @Transient (not stored)': var handler: () -> Void -> @Transient \n    var handler: () -> Void]",
            "4:15: property 'pair' of type '(Int, Int)' can't be stored: a tuple can't be stored; use a Codable struct [fix-it 'mark it @Transient (not stored)': var pair: (Int, Int) -> @Transient \n    var pair: (Int, Int)]",
            "5:29: @Relationship 'tags' points to 'String', which is a value, not a model; store it as an attribute [fix-it 'remove @Relationship': @Relationship -> ]",
            "6:29: the inverse of 'stops' must be a property of its destination 'Stop', not of 'Activity' [fix-it 'use a key path of 'Stop'': \\Activity.trip -> \\Stop.trip]",
            "7:22: @Model doesn't keep 'willSet'/'didSet' on 'name'; observe the model with the Observation module instead",
            "8:5: declare one stored property per 'var' in a model",
            "9:20: @Transient property 'cache' needs a default value: a model loaded from the store gets it",
        ])
    }

    @Test func constraintsTakeKeyPathArrays() {
        // (The position is inside the macro's own expansion buffer here; the compiler maps it.)
        let diagnostics = Self.expand("@Model final class Person {\n    var name: String = \"\"\n    #Unique<Person>(\\.name)\n}\n").diagnostics
        #expect(diagnostics == ["1:22: #Unique takes arrays of key paths of the model, such as #Unique<Person>([\\.name, \\.birthday])"])
    }
}
