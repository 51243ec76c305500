import Foundation

/// A type that converts to and from an SQLite value.
///
/// Conformances exist for every integer width, `Double`, `Float`, `Bool`, `String`,
/// `Data`, `Date`, `UUID`, `URL`, `Decimal` and `Optional` of each. The storage mapping is
/// part of the documented file format:
///
/// | Swift | SQLite |
/// |---|---|
/// | integers, `Bool` | INTEGER (`UInt64` above `Int64.max` keeps its bit pattern) |
/// | `Double`, `Float` | REAL |
/// | `String` | TEXT |
/// | `Data` | BLOB |
/// | `Date` | REAL, seconds since 1970-01-01 UTC (readable with `datetime(x, 'unixepoch')`) |
/// | `UUID` | TEXT, upper-case canonical form |
/// | `URL` | TEXT, the absolute string |
/// | `Decimal` | TEXT, its exact description |
///
/// The statement-level requirements are fast paths that skip ``SQLValue``; their defaults go
/// through it.
public protocol DatabaseValueConvertible {
    /// The value as SQLite stores it.
    var databaseValue: SQLValue { get }
    /// The value read back from SQLite, or nil when the stored value does not convert.
    static func fromDatabaseValue(_ value: SQLValue) -> Self?
    /// Binds the value to parameter `index` (1-based) of `statement`.
    func bind(to statement: Statement, at index: Int32)
    /// Reads column `index` (0-based) of the current row of `statement`.
    static func read(from statement: Statement, at index: Int32) -> Self?
}

extension DatabaseValueConvertible {
    public func bind(to statement: Statement, at index: Int32) {
        statement.bind(databaseValue, at: index)
    }
    public static func read(from statement: Statement, at index: Int32) -> Self? {
        fromDatabaseValue(statement.value(at: index))
    }
}

extension SQLValue: DatabaseValueConvertible {
    public var databaseValue: SQLValue { self }
    public static func fromDatabaseValue(_ value: SQLValue) -> SQLValue? { value }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .integer(self) }
    public static func fromDatabaseValue(_ value: SQLValue) -> Int64? {
        switch value {
        case .integer(let v): v
        case .real(let v): Int64(exactly: v)
        case .text(let v): Int64(v)
        default: nil
        }
    }
    public func bind(to statement: Statement, at index: Int32) { statement.bind(int64: self, at: index) }
    public static func read(from statement: Statement, at index: Int32) -> Int64? {
        statement.isNull(at: index) ? nil : statement.int64(at: index)
    }
}

/// Integer widths convert through `Int64`, refusing values that don't fit.
public protocol DatabaseIntegerConvertible: FixedWidthInteger, DatabaseValueConvertible {}
extension DatabaseIntegerConvertible {
    public var databaseValue: SQLValue { .integer(Int64(truncatingIfNeeded: self)) }
    public static func fromDatabaseValue(_ value: SQLValue) -> Self? {
        Int64.fromDatabaseValue(value).flatMap { Self(exactly: $0) }
    }
    public func bind(to statement: Statement, at index: Int32) {
        statement.bind(int64: Int64(truncatingIfNeeded: self), at: index)
    }
    public static func read(from statement: Statement, at index: Int32) -> Self? {
        statement.isNull(at: index) ? nil : Self(exactly: statement.int64(at: index))
    }
}
extension Int: DatabaseIntegerConvertible {}
extension Int8: DatabaseIntegerConvertible {}
extension Int16: DatabaseIntegerConvertible {}
extension Int32: DatabaseIntegerConvertible {}
extension UInt: DatabaseIntegerConvertible {}
extension UInt8: DatabaseIntegerConvertible {}
extension UInt16: DatabaseIntegerConvertible {}
extension UInt32: DatabaseIntegerConvertible {}

extension UInt64: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .integer(Int64(bitPattern: self)) }
    public static func fromDatabaseValue(_ value: SQLValue) -> UInt64? {
        Int64.fromDatabaseValue(value).map { UInt64(bitPattern: $0) }
    }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .integer(self ? 1 : 0) }
    public static func fromDatabaseValue(_ value: SQLValue) -> Bool? {
        Int64.fromDatabaseValue(value).map { $0 != 0 }
    }
    public func bind(to statement: Statement, at index: Int32) { statement.bind(int64: self ? 1 : 0, at: index) }
    public static func read(from statement: Statement, at index: Int32) -> Bool? {
        statement.isNull(at: index) ? nil : statement.int64(at: index) != 0
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .real(self) }
    public static func fromDatabaseValue(_ value: SQLValue) -> Double? {
        switch value {
        case .integer(let v): Double(v)
        case .real(let v): v
        case .text(let v): Double(v)
        default: nil
        }
    }
    public func bind(to statement: Statement, at index: Int32) { statement.bind(double: self, at: index) }
    public static func read(from statement: Statement, at index: Int32) -> Double? {
        statement.isNull(at: index) ? nil : statement.double(at: index)
    }
}

extension Float: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .real(Double(self)) }
    public static func fromDatabaseValue(_ value: SQLValue) -> Float? {
        Double.fromDatabaseValue(value).map { Float($0) }
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .text(self) }
    public static func fromDatabaseValue(_ value: SQLValue) -> String? {
        switch value {
        case .text(let v): v
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .blob(let v): String(data: v, encoding: .utf8)
        case .null: nil
        }
    }
    public func bind(to statement: Statement, at index: Int32) { statement.bind(text: self, at: index) }
    public static func read(from statement: Statement, at index: Int32) -> String? {
        statement.isNull(at: index) ? nil : statement.string(at: index)
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .blob(self) }
    public static func fromDatabaseValue(_ value: SQLValue) -> Data? {
        switch value {
        case .blob(let v): v
        case .text(let v): Data(v.utf8)
        default: nil
        }
    }
    public func bind(to statement: Statement, at index: Int32) { statement.bind(blob: self, at: index) }
    public static func read(from statement: Statement, at index: Int32) -> Data? {
        statement.isNull(at: index) ? nil : statement.data(at: index)
    }
}

extension Date: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .real(timeIntervalSince1970) }
    public static func fromDatabaseValue(_ value: SQLValue) -> Date? {
        Double.fromDatabaseValue(value).map { Date(timeIntervalSince1970: $0) }
    }
    public func bind(to statement: Statement, at index: Int32) {
        statement.bind(double: timeIntervalSince1970, at: index)
    }
    public static func read(from statement: Statement, at index: Int32) -> Date? {
        statement.isNull(at: index) ? nil : Date(timeIntervalSince1970: statement.double(at: index))
    }
}

extension UUID: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .text(uuidString) }
    public static func fromDatabaseValue(_ value: SQLValue) -> UUID? {
        switch value {
        case .text(let v): UUID(uuidString: v)
        case .blob(let v) where v.count == 16:
            v.withUnsafeBytes { raw in
                UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
            }
        default: nil
        }
    }
}

extension URL: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .text(absoluteString) }
    public static func fromDatabaseValue(_ value: SQLValue) -> URL? {
        String.fromDatabaseValue(value).flatMap { URL(string: $0) }
    }
}

extension Decimal: DatabaseValueConvertible {
    public var databaseValue: SQLValue { .text(description) }
    public static func fromDatabaseValue(_ value: SQLValue) -> Decimal? {
        switch value {
        case .text(let v): Decimal(string: v, locale: Locale(identifier: "en_US_POSIX"))
        case .integer(let v): Decimal(v)
        case .real(let v): Decimal(v)
        default: nil
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: SQLValue { self?.databaseValue ?? .null }
    public static func fromDatabaseValue(_ value: SQLValue) -> Optional<Wrapped>? {
        if value.isNull { return .some(nil) }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
    public func bind(to statement: Statement, at index: Int32) {
        if let self { self.bind(to: statement, at: index) } else { statement.bindNull(at: index) }
    }
    public static func read(from statement: Statement, at index: Int32) -> Optional<Wrapped>? {
        if statement.isNull(at: index) { return .some(nil) }
        return Wrapped.read(from: statement, at: index).map { .some($0) }
    }
}
