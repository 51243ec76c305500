import Foundation
import SQLite

/// A piece of SQL produced from a predicate expression.
enum SQLFragment {
    /// A scalar SQL expression; `nullable` when it may be NULL.
    case scalar(String, nullable: Bool)
    /// A row of an entity: `alias` names it in the current scope; `reference` is an
    /// expression holding its primary key when it was reached through a to-one key.
    case row(alias: String, entity: Schema.Entity, reference: String?)
    /// A set of rows of an entity reached through a to-many relationship (or a filter of one).
    case collection(entity: Schema.Entity, alias: String, from: String, condition: String)
    /// A constant list (for IN).
    case list([SQLValue])
    /// A constant value, kept apart so comparisons with nil can use IS NULL.
    case constant(SQLValue)
}

/// Translates Foundation predicates and sort descriptors into SQL with bound parameters.
///
/// The walk goes through `PredicateExpressions` types, each made to conform to
/// ``SQLTranslatable``; an expression type without a conformance is reported by name.
struct SQLTranslator {
    let schema: Schema
    private(set) var arguments: [SQLValue] = []
    var variables: [PredicateExpressions.VariableID: SQLFragment] = [:]
    /// The attribute behind each column expression produced (for `rawValue` of enums).
    var attributeOrigins: [String: (entity: Schema.Entity, attribute: Schema.Attribute)] = [:]
    private var aliasCounter = 0

    init(schema: Schema) { self.schema = schema }

    mutating func newAlias() -> String {
        aliasCounter += 1
        return "a\(aliasCounter)"
    }

    /// Binds a value and returns its placeholder.
    mutating func parameter(_ value: SQLValue) -> String {
        arguments.append(value)
        return "?"
    }

    /// Translates any predicate expression.
    mutating func translate(_ expression: Any) throws -> SQLFragment {
        guard let translatable = expression as? any SQLTranslatable else {
            throw PersistenceError.unsupportedPredicate(expressionName(expression))
        }
        return try translatable.translate(into: &self)
    }

    /// Translates an expression that must give a scalar (a value or a condition).
    mutating func scalar(_ expression: Any) throws -> (sql: String, nullable: Bool) {
        switch try translate(expression) {
        case .scalar(let sql, let nullable): return (sql, nullable)
        case .constant(let value):
            if value.isNull { return ("NULL", true) }
            return (parameter(value), false)
        case .row(_, _, let reference?): return (reference, true)
        case .row(let alias, _, nil): return ("\(alias).\"pk\"", false)
        case .list, .collection:
            throw PersistenceError.unsupportedPredicate("a collection used as a single value in \(expressionName(expression))")
        }
    }

    /// Translates a predicate over the entity whose rows are aliased `alias`.
    mutating func translate<T>(_ predicate: Predicate<T>, entity: Schema.Entity, alias: String) throws -> String {
        variables[predicate.variable.key] = .row(alias: alias, entity: entity, reference: nil)
        return try scalar(predicate.expression).sql
    }

    /// The SQL value of a Swift constant: database-convertible values, enums by raw value,
    /// models by primary key, `Codable` values as JSON.
    func databaseValue(of value: Any) throws -> SQLValue { try constantValue(value) }

    /// The SQL `ORDER BY` terms for sort descriptors.
    func orderBy<T>(_ sorts: [SortDescriptor<T>], entity: Schema.Entity, alias: String) throws -> [String] {
        try sorts.map { sort in
            guard let keyPath = sort.keyPath else {
                throw PersistenceError.unsupportedPredicate("a sort descriptor without a key path")
            }
            guard let column = entity.columnName(for: keyPath) else {
                throw PersistenceError.unsupportedPredicate("sorting by \(keyPath), which is not a stored attribute of \(entity.name)")
            }
            return "\(alias).\(quoteIdentifier(column)) \(sort.order == .forward ? "ASC" : "DESC")"
        }
    }
}

/// The SQL value of a Swift value as an attribute would store it: database-convertible
/// values, enums by raw value, models by primary key, `Codable` values as JSON.
func constantValue(_ value: Any) throws -> SQLValue {
    if let optional = value as? any OptionalProtocol, optional.isNone { return .null }
    let unwrapped = unwrapOptional(value)
    if let convertible = unwrapped as? any DatabaseValueConvertible { return convertible.databaseValue }
    if let raw = unwrapped as? any RawRepresentable, let rawValue = raw.rawValue as? any DatabaseValueConvertible {
        return rawValue.databaseValue
    }
    if let model = unwrapped as? any PersistentModel {
        guard model.persistentBackingData.state == .registered else {
            throw PersistenceError.unsupportedPredicate("a model that has not been saved, used as a constant")
        }
        return .integer(model.persistentBackingData.primaryKey)
    }
    if let encodable = unwrapped as? any Encodable { return encodeJSON(encodable) }
    throw PersistenceError.unsupportedPredicate("a constant of type \(type(of: value))")
}

func unwrapOptional(_ value: Any) -> Any {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional, let child = mirror.children.first else { return value }
    return unwrapOptional(child.value)
}

func expressionName(_ expression: Any) -> String {
    let name = String(describing: type(of: expression))
    // Trim the generic arguments to the outermost expression name.
    return name.split(separator: "<").first.map(String.init) ?? name
}

/// A predicate expression that can become SQL.
protocol SQLTranslatable {
    func translate(into translator: inout SQLTranslator) throws -> SQLFragment
}
