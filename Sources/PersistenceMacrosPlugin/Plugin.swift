@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftSyntaxMacros

/// The compiler plugin: serves the model macros over the compiler's plugin protocol on
/// standard input and output (swift-syntax's `SwiftCompilerPlugin` wrapper is not part of the
/// toolchain's host modules, so this is its small equivalent).
@main
struct PersistenceMacrosPlugin: PluginProvider {
    func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
        switch typeName {
        case "ModelMacro": ModelMacro.self
        case "PersistedPropertyMacro": PersistedPropertyMacro.self
        case "MarkerMacro": MarkerMacro.self
        case "ConstraintMacro": ConstraintMacro.self
        case "ModelActorMacro": ModelActorMacro.self
        default: throw PluginError.unknownMacro(moduleName, typeName)
        }
    }

    func loadPluginLibrary(libraryPath: String, moduleName: String) throws {
        throw PluginError.noLibraries
    }

    static func main() throws {
        let handler = ModelPluginMessageHandler(PluginProviderMessageHandler(provider: Self()))
        let listener = CompilerPluginMessageListener(connection: try StandardIOMessageConnection(), messageHandler: handler)
        try listener.main()
    }
}

/// swift-syntax's message handler, with two requests answered more cheaply.
///
/// A module of models sends the plugin some twenty requests per model, and each carries the
/// compiler's build configuration (about 3.6 KB of JSON, which swift-syntax decodes for every
/// request although none of these macros reads it): it is dropped before the request is
/// handed on. `@Attribute`, `@Relationship` and `@Transient` expand to nothing whatever their
/// arguments (`@Model` reads them from the property's syntax), so their requests are answered
/// at once, without parsing the property, the attribute and the class around it; `@Model`'s
/// and `@_PersistedProperty`'s are answered with their text (``TextExpansion``).
final class ModelPluginMessageHandler: PluginMessageHandler {
    let base: PluginProviderMessageHandler<PersistenceMacrosPlugin>
    let text = TextExpansion()

    init(_ base: PluginProviderMessageHandler<PersistenceMacrosPlugin>) {
        self.base = base
    }

    func handleMessage(_ message: HostToPluginMessage) -> PluginToHostMessage {
        switch message {
        case .expandAttachedMacro(let macro, let role, let discriminator, let attribute, let declaration, let parent,
                                  let extendedType, let conformances, let lexicalContext, _):
            // A compiler that sends the lexical context takes the one-string result
            // (`expandMacroResult`, older than the lexical context); to an older one the
            // request goes through swift-syntax, which answers in the form it expects.
            if let lexicalContext {
                if macro.typeName == "MarkerMacro" {
                    return .expandMacroResult(expandedSource: "", diagnostics: [])
                }
                if let source = text.expand(
                    macro: macro.typeName, role: role, declaration: declaration.source, lexicalContext: lexicalContext.map(\.source),
                    extendedType: extendedType?.source, conformances: conformances?.source) {
                    return .expandMacroResult(expandedSource: source, diagnostics: [])
                }
            }
            return base.handleMessage(.expandAttachedMacro(
                macro: macro, macroRole: role, discriminator: discriminator, attributeSyntax: attribute,
                declSyntax: declaration, parentDeclSyntax: parent, extendedTypeSyntax: extendedType,
                conformanceListSyntax: conformances, lexicalContext: lexicalContext, staticBuildConfiguration: nil))
        case .expandFreestandingMacro(let macro, let role, let discriminator, let syntax, let lexicalContext, _):
            return base.handleMessage(.expandFreestandingMacro(
                macro: macro, macroRole: role, discriminator: discriminator, syntax: syntax,
                lexicalContext: lexicalContext, staticBuildConfiguration: nil))
        default:
            return base.handleMessage(message)
        }
    }

    func shutDown() throws {
        try base.shutDown()
    }
}

enum PluginError: Error, CustomStringConvertible {
    case unknownMacro(String, String)
    case noLibraries

    var description: String {
        switch self {
        case .unknownMacro(let module, let type): "no macro \(module).\(type) in PersistenceMacrosPlugin"
        case .noLibraries: "PersistenceMacrosPlugin loads no plugin libraries"
        }
    }
}
