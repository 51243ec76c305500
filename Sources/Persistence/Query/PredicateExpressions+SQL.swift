import Foundation
import SQLite

// Each supported `PredicateExpressions` node, translated to SQL. Unsupported nodes are
// reported by SQLTranslator.translate(_:) with their type name.

extension PredicateExpressions.Variable: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        guard let fragment = t.variables[key] else {
            throw PersistenceError.unsupportedPredicate("a variable outside its scope")
        }
        return fragment
    }
}

extension PredicateExpressions.Value: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        if let sequence = value as? any Sequence, !(value is String), !(value is Data) {
            return .list(try sequence.map { try t.databaseValue(of: $0) })
        }
        return .constant(try t.databaseValue(of: value))
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment { .constant(.null) }
}

/// Key paths on String and Array that have an SQL meaning.
private protocol CollectionKeyPaths {
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}
extension Array: CollectionKeyPaths {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}
extension String: CollectionKeyPaths {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}
extension Set: CollectionKeyPaths {
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension PredicateExpressions.KeyPath: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        let base = try t.translate(root)
        let keyPath: AnyKeyPath = self.keyPath
        switch base {
        case .row(let alias, let entity, let reference):
            if let attribute = entity.attribute(for: keyPath) {
                let column = "\(alias).\(quoteIdentifier(attribute.name))"
                let sql = subquery(column, alias: alias, entity: entity, reference: reference)
                t.attributeOrigins[sql] = (entity, attribute)
                return .scalar(sql, nullable: attribute.isOptional || reference != nil)
            }
            guard let relationship = entity.relationship(for: keyPath), let destination = t.schema.destination(of: relationship) else {
                throw PersistenceError.unsupportedPredicate("\(keyPath), which is not an attribute or relationship of \(entity.name)")
            }
            if !relationship.isToMany {
                let key = "\(alias).\(quoteIdentifier(relationship.name))"
                let reachable = subquery(key, alias: alias, entity: entity, reference: reference)
                return .row(alias: t.newAlias(), entity: destination, reference: reachable)
            }
            let outerKey = reference ?? "\(alias).\"pk\""
            let inner = t.newAlias()
            switch t.schema.storage(ofToMany: relationship, in: entity) {
            case .inverseColumn(_, let column)?:
                return .collection(entity: destination, alias: inner, from: "\(quoteIdentifier(destination.tableName)) \(inner)",
                                   condition: "\(inner).\(quoteIdentifier(column)) = \(outerKey)")
            case .joinTable(let table, let source, let target)?:
                let join = t.newAlias()
                return .collection(entity: destination, alias: inner,
                                   from: "\(quoteIdentifier(destination.tableName)) \(inner) JOIN \(quoteIdentifier(table)) \(join) ON \(join).\(quoteIdentifier(target)) = \(inner).\"pk\"",
                                   condition: "\(join).\(quoteIdentifier(source)) = \(outerKey)")
            case nil:
                throw PersistenceError.unsupportedPredicate("relationship \(relationship.name)")
            }
        case .collection(_, _, let from, let condition):
            let type = Root.Output.self
            if let provider = type as? any CollectionKeyPaths.Type {
                if keyPath == provider.countKeyPath { return .scalar("(SELECT count(*) FROM \(from) WHERE \(condition))", nullable: false) }
                if keyPath == provider.isEmptyKeyPath { return .scalar("(NOT EXISTS (SELECT 1 FROM \(from) WHERE \(condition)))", nullable: false) }
            }
            throw PersistenceError.unsupportedPredicate("\(keyPath) on a to-many relationship (only count and isEmpty)")
        case .scalar(let sql, let nullable):
            if let provider = Root.Output.self as? any CollectionKeyPaths.Type {
                if keyPath == provider.countKeyPath { return .scalar("length(\(sql))", nullable: nullable) }
                if keyPath == provider.isEmptyKeyPath { return .scalar("(\(sql) = '')", nullable: nullable) }
            }
            // `$0.kind.rawValue`: an enum attribute's column holds its raw value already.
            if Root.Output.self is any RawRepresentable.Type, let origin = t.attributeOrigins[sql],
               isRawValueKeyPath(origin) {
                return .scalar(sql, nullable: nullable)
            }
            throw PersistenceError.unsupportedPredicate("\(keyPath) on a value")
        case .constant, .list:
            throw PersistenceError.unsupportedPredicate("\(keyPath) on a constant (compute it outside the predicate)")
        }
    }

    /// Whether `keyPath` is the enum's `rawValue`: key paths to a protocol requirement can't
    /// be compared, so it is applied to sample values of the attribute (the default of a new
    /// model, or every case of a `CaseIterable` enum) and must give each one's raw value.
    private func isRawValueKeyPath(_ origin: (entity: Schema.Entity, attribute: Schema.Attribute)) -> Bool {
        var samples: [Root.Output] = []
        if let all = Root.Output.self as? any CaseIterable.Type {
            samples = all.allCasesAsAny.compactMap { $0 as? Root.Output }
        }
        if samples.isEmpty, let value = unwrapOptional(origin.entity.make()[keyPath: origin.attribute.keyPath] as Any) as? Root.Output {
            samples = [value]
        }
        guard !samples.isEmpty else { return false }
        return samples.allSatisfy { sample in
            guard let raw = sample as? any RawRepresentable,
                  let expected = try? constantValue(raw.rawValue), let actual = try? constantValue(sample[keyPath: keyPath]) else { return false }
            return expected == actual
        }
    }

    /// A column of a row reached through a to-one key becomes a scalar subquery.
    private func subquery(_ column: String, alias: String, entity: Schema.Entity, reference: String?) -> String {
        guard let reference else { return column }
        return "(SELECT \(column) FROM \(quoteIdentifier(entity.tableName)) \(alias) WHERE \(alias).\"pk\" = \(reference))"
    }
}

// MARK: Comparisons

private func equality(_ t: inout SQLTranslator, _ lhs: Any, _ rhs: Any, negated: Bool) throws -> SQLFragment {
    let left = try t.translate(lhs)
    let right = try t.translate(rhs)
    // `x == nil` becomes IS NULL.
    if case .constant(.null) = right { return .scalar("(\(try t.scalarOf(left)) IS \(negated ? "NOT " : "")NULL)", nullable: false) }
    if case .constant(.null) = left { return .scalar("(\(try t.scalarOf(right)) IS \(negated ? "NOT " : "")NULL)", nullable: false) }
    let (l, ln) = try t.scalarPair(left)
    let (r, rn) = try t.scalarPair(right)
    if ln || rn { return .scalar("(\(l) IS \(negated ? "NOT " : "")\(r))", nullable: false) }
    return .scalar("(\(l) \(negated ? "<>" : "=") \(r))", nullable: false)
}

extension SQLTranslator {
    mutating func scalarOf(_ fragment: SQLFragment) throws -> String { try scalarPair(fragment).0 }
    mutating func scalarPair(_ fragment: SQLFragment) throws -> (String, Bool) {
        switch fragment {
        case .scalar(let sql, let nullable): return (sql, nullable)
        case .constant(let value): return value.isNull ? ("NULL", true) : (parameter(value), false)
        case .row(_, _, let reference?): return (reference, true)
        case .row(let alias, _, nil): return ("\(alias).\"pk\"", false)
        case .list, .collection: throw PersistenceError.unsupportedPredicate("a collection used as a single value")
        }
    }
}

extension SQLTranslator {
    /// `(lhs <op> rhs)`: nullable when either side is, unless `nullable` says otherwise.
    mutating func infix(_ lhs: Any, _ symbol: String, _ rhs: Any, nullable: Bool? = nil) throws -> SQLFragment {
        let l = try scalar(lhs), r = try scalar(rhs)
        return .scalar("(\(l.sql) \(symbol) \(r.sql))", nullable: nullable ?? (l.nullable || r.nullable))
    }
}

extension PredicateExpressions.Equal: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment { try equality(&t, lhs, rhs, negated: false) }
}
extension PredicateExpressions.NotEqual: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment { try equality(&t, lhs, rhs, negated: true) }
}

extension PredicateExpressions.Comparison: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        let symbol: String
        switch op {
        case .lessThan: symbol = "<"
        case .lessThanOrEqual: symbol = "<="
        case .greaterThan: symbol = ">"
        case .greaterThanOrEqual: symbol = ">="
        @unknown default: throw PersistenceError.unsupportedPredicate("comparison operator \(op)")
        }
        return try t.infix(lhs, symbol, rhs)
    }
}

// MARK: Logic

extension PredicateExpressions.Conjunction: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        try t.infix(lhs, "AND", rhs, nullable: false)
    }
}
extension PredicateExpressions.Disjunction: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        try t.infix(lhs, "OR", rhs, nullable: false)
    }
}
extension PredicateExpressions.Negation: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        // coalesce keeps Swift's two-valued logic: NOT of an unknown comparison is true.
        let inner = try t.scalar(wrapped)
        return .scalar(inner.nullable ? "(NOT coalesce(\(inner.sql), 0))" : "(NOT \(inner.sql))", nullable: false)
    }
}
extension PredicateExpressions.Conditional: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        let c = try t.scalar(test), a = try t.scalar(trueBranch), b = try t.scalar(falseBranch)
        return .scalar("(CASE WHEN \(c.sql) THEN \(a.sql) ELSE \(b.sql) END)", nullable: a.nullable || b.nullable)
    }
}

// MARK: Optionals

extension PredicateExpressions.NilCoalesce: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        let l = try t.scalar(lhs), r = try t.scalar(rhs)
        return .scalar("coalesce(\(l.sql), \(r.sql))", nullable: r.nullable)
    }
}
extension PredicateExpressions.OptionalFlatMap: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        // SQL NULL propagates like nil through the transform.
        t.variables[variable.key] = try t.translate(wrapped)
        return try t.translate(transform)
    }
}
extension PredicateExpressions.ForcedUnwrap: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment { try t.translate(inner) }
}

// MARK: Arithmetic

/// Decimal columns hold order-preserving text (`Decimal.orderedText`), on which SQL
/// arithmetic means nothing.
private func refuseDecimalArithmetic(_ type: Any.Type) throws {
    if type == Decimal.self || type == Decimal?.self {
        throw PersistenceError.unsupportedPredicate("arithmetic on Decimal values (stored as ordered text: compare them with a value computed outside the predicate)")
    }
}

extension PredicateExpressions.Arithmetic: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        try refuseDecimalArithmetic(LHS.Output.self)
        let symbol: String
        switch op {
        case .add: symbol = "+"
        case .subtract: symbol = "-"
        case .multiply: symbol = "*"
        @unknown default: throw PersistenceError.unsupportedPredicate("arithmetic operator \(op)")
        }
        return try t.infix(lhs, symbol, rhs)
    }
}
extension PredicateExpressions.FloatDivision: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        let l = try t.scalar(lhs), r = try t.scalar(rhs)
        return .scalar("(CAST(\(l.sql) AS REAL) / \(r.sql))", nullable: true)
    }
}
extension PredicateExpressions.IntDivision: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        try t.infix(lhs, "/", rhs, nullable: true)
    }
}
extension PredicateExpressions.IntRemainder: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        try t.infix(lhs, "%", rhs, nullable: true)
    }
}
extension PredicateExpressions.UnaryMinus: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        try refuseDecimalArithmetic(Wrapped.Output.self)
        let v = try t.scalar(wrapped)
        return .scalar("(-\(v.sql))", nullable: v.nullable)
    }
}

// MARK: Strings and sequences

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        // Case-sensitive, as String.contains(_:) is.
        let l = try t.scalar(base), r = try t.scalar(other)
        return .scalar("(instr(\(l.sql), \(r.sql)) > 0)", nullable: l.nullable || r.nullable)
    }
}
extension PredicateExpressions.SequenceStartsWith: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        let l = try t.scalar(base), r = try t.scalar(prefix)
        return .scalar("(instr(\(l.sql), \(r.sql)) = 1)", nullable: l.nullable || r.nullable)
    }
}
extension PredicateExpressions.SequenceContains: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        let container = try t.translate(sequence)
        switch container {
        case .list(let values):
            let e = try t.scalar(element)
            if values.isEmpty { return .scalar("0", nullable: false) }
            let placeholders = values.map { t.parameter($0) }.joined(separator: ", ")
            return .scalar("(\(e.sql) IN (\(placeholders)))", nullable: e.nullable)
        case .collection(_, let alias, let from, let condition):
            let e = try t.scalar(element)
            return .scalar("EXISTS (SELECT 1 FROM \(from) WHERE \(condition) AND \(alias).\"pk\" = \(e.sql))", nullable: false)
        case .scalar(let text, let nullable):
            let e = try t.scalar(element)
            return .scalar("(instr(\(text), \(e.sql)) > 0)", nullable: nullable)
        default:
            throw PersistenceError.unsupportedPredicate("contains(_:) on this kind of value")
        }
    }
}
extension PredicateExpressions.SequenceContainsWhere: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        guard case .collection(let entity, let alias, let from, let condition) = try t.translate(sequence) else {
            throw PersistenceError.unsupportedPredicate("contains(where:) on something other than a to-many relationship")
        }
        t.variables[variable.key] = .row(alias: alias, entity: entity, reference: nil)
        let inner = try t.scalar(test)
        return .scalar("EXISTS (SELECT 1 FROM \(from) WHERE \(condition) AND \(inner.sql))", nullable: false)
    }
}
extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        guard case .collection(let entity, let alias, let from, let condition) = try t.translate(sequence) else {
            throw PersistenceError.unsupportedPredicate("allSatisfy on something other than a to-many relationship")
        }
        t.variables[variable.key] = .row(alias: alias, entity: entity, reference: nil)
        let inner = try t.scalar(test)
        return .scalar("NOT EXISTS (SELECT 1 FROM \(from) WHERE \(condition) AND NOT coalesce(\(inner.sql), 0))", nullable: false)
    }
}
extension PredicateExpressions.Filter: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        guard case .collection(let entity, let alias, let from, let condition) = try t.translate(sequence) else {
            throw PersistenceError.unsupportedPredicate("filter on something other than a to-many relationship")
        }
        t.variables[variable.key] = .row(alias: alias, entity: entity, reference: nil)
        let inner = try t.scalar(filter)
        return .collection(entity: entity, alias: alias, from: from, condition: "\(condition) AND \(inner.sql)")
    }
}
extension PredicateExpressions.ClosedRange: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        let l = try t.scalar(lower), u = try t.scalar(upper)
        return .scalar("\(l.sql) AND \(u.sql)", nullable: false)
    }
}
extension PredicateExpressions.RangeExpressionContains: SQLTranslatable {
    func translate(into t: inout SQLTranslator) throws -> SQLFragment {
        guard range is any SQLRangeMarker else {
            throw PersistenceError.unsupportedPredicate("contains(_:) on a half-open range (use a closed range or two comparisons)")
        }
        let bounds = try t.scalar(range), e = try t.scalar(element)
        return .scalar("(\(e.sql) BETWEEN \(bounds.sql))", nullable: e.nullable)
    }
}
protocol SQLRangeMarker {}
extension PredicateExpressions.ClosedRange: SQLRangeMarker {}

private extension CaseIterable {
    static var allCasesAsAny: [Any] { allCases.map { $0 as Any } }
}
