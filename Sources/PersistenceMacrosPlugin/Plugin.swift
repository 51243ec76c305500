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
        default: throw PluginError.unknownMacro(moduleName, typeName)
        }
    }

    func loadPluginLibrary(libraryPath: String, moduleName: String) throws {
        throw PluginError.noLibraries
    }

    static func main() throws {
        let listener = CompilerPluginMessageListener(connection: try StandardIOMessageConnection(), provider: Self())
        try listener.main()
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
