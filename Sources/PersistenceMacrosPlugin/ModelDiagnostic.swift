import SwiftDiagnostics

/// The errors and warnings the model macros report, each with a stable identifier.
enum ModelDiagnostic: DiagnosticMessage {
    case notAClass(String)
    case letProperty(String)
    case multipleBindings
    case lazy(String)
    case observers(String)
    case unsupportedType(String, String, String)
    case relationshipToValue(String, String)
    case relationshipNeedsType(String)
    case inverseRoot(String, String, String)
    case attributeOnRelationship(String)
    case transientNeedsValue(String)
    case keyPathsExpected(String)

    var message: String {
        switch self {
        case .notAClass(let kind):
            "@Model applies to a class; this is \(kind) (a model has one identity shared by every view of it)"
        case .letProperty(let name):
            "stored property '\(name)' of a model must be 'var': the context sets it when it loads a row"
        case .multipleBindings:
            "declare one stored property per 'var' in a model"
        case .lazy(let name):
            "'lazy' property '\(name)' can't be stored; mark it @Transient or remove 'lazy'"
        case .observers(let name):
            "@Model doesn't keep 'willSet'/'didSet' on '\(name)'; observe the model with the Observation module instead"
        case .unsupportedType(let name, let type, let reason):
            "property '\(name)' of type '\(type)' can't be stored: \(reason)"
        case .relationshipToValue(let name, let type):
            "@Relationship '\(name)' points to '\(type)', which is a value, not a model; store it as an attribute"
        case .relationshipNeedsType(let name):
            "@Relationship '\(name)' needs a type annotation naming its destination model"
        case .inverseRoot(let name, let root, let destination):
            "the inverse of '\(name)' must be a property of its destination '\(destination)', not of '\(root)'"
        case .attributeOnRelationship(let name):
            "'\(name)' is a @Relationship; @Attribute options don't apply to it"
        case .transientNeedsValue(let name):
            "@Transient property '\(name)' needs a default value: a model loaded from the store gets it"
        case .keyPathsExpected(let macro):
            "#\(macro) takes arrays of key paths of the model, such as #\(macro)<Person>([\\.name, \\.birthday])"
        }
    }

    var diagnosticID: MessageID {
        let id: String = switch self {
        case .notAClass: "notAClass"
        case .letProperty: "letProperty"
        case .multipleBindings: "multipleBindings"
        case .lazy: "lazy"
        case .observers: "observers"
        case .unsupportedType: "unsupportedType"
        case .relationshipToValue: "relationshipToValue"
        case .relationshipNeedsType: "relationshipNeedsType"
        case .inverseRoot: "inverseRoot"
        case .attributeOnRelationship: "attributeOnRelationship"
        case .transientNeedsValue: "transientNeedsValue"
        case .keyPathsExpected: "keyPathsExpected"
        }
        return MessageID(domain: "PersistenceMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The fix-its offered with those diagnostics.
enum ModelFixIt: FixItMessage {
    case makeFinalClass
    case useVar
    case markTransient
    case removeRelationship
    case inverseRoot(String)

    var message: String {
        switch self {
        case .makeFinalClass: "make it a 'final class'"
        case .useVar: "replace 'let' with 'var'"
        case .markTransient: "mark it @Transient (not stored)"
        case .removeRelationship: "remove @Relationship"
        case .inverseRoot(let destination): "use a key path of '\(destination)'"
        }
    }

    var fixItID: MessageID {
        let id: String = switch self {
        case .makeFinalClass: "makeFinalClass"
        case .useVar: "useVar"
        case .markTransient: "markTransient"
        case .removeRelationship: "removeRelationship"
        case .inverseRoot: "inverseRoot"
        }
        return MessageID(domain: "PersistenceMacros", id: id)
    }
}
