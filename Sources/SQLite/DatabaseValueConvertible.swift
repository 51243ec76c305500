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
/// | `Decimal` | TEXT, exact and ordered by value (`Decimal.orderedText`: `9.99` is `p501999 9.99`) |
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
    /// The declared type of a column holding the type (the table above; `TEXT` by default):
    /// known from the conformance, so building a schema needs no dynamic cast (each first-time
    /// conformance lookup cost a process 0.2–0.4 M instructions, a third of a `deck review`).
    static var databaseColumnType: String { get }
    /// Whether NULL is a value of the type (`Optional`), known from the conformance.
    static var isDatabaseOptional: Bool { get }
}

extension DatabaseValueConvertible {
    public static var databaseColumnType: String { "TEXT" }
    public static var isDatabaseOptional: Bool { false }
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
    public static var databaseColumnType: String { "INTEGER" }
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
    public static var databaseColumnType: String { "INTEGER" }
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
    public static var databaseColumnType: String { "INTEGER" }
    public var databaseValue: SQLValue { .integer(Int64(bitPattern: self)) }
    public static func fromDatabaseValue(_ value: SQLValue) -> UInt64? {
        Int64.fromDatabaseValue(value).map { UInt64(bitPattern: $0) }
    }
}

extension Bool: DatabaseValueConvertible {
    public static var databaseColumnType: String { "INTEGER" }
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
    public static var databaseColumnType: String { "REAL" }
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
    public static var databaseColumnType: String { "REAL" }
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
    public static var databaseColumnType: String { "BLOB" }
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
    public static var databaseColumnType: String { "REAL" }
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
    /// Order-preserving text (see ``Decimal/orderedText``): SQLite's text comparison of two
    /// stored values is their numeric comparison, and no digit is lost.
    public var databaseValue: SQLValue { .text(orderedText) }
    /// Reads the order-preserving text, and also the plain text (`12.5`), integers and reals
    /// of stores written before it.
    public static func fromDatabaseValue(_ value: SQLValue) -> Decimal? {
        switch value {
        case .text(let v): Decimal(orderedText: v) ?? Decimal(string: v, locale: Locale(identifier: "en_US_POSIX"))
        case .integer(let v): Decimal(v)
        case .real(let v): Decimal(string: "\(v)", locale: Locale(identifier: "en_US_POSIX"))
        default: nil
        }
    }
}

extension Decimal {
    /// The value as text that sorts, byte by byte, in numeric order, followed by the plain
    /// value for people reading the store.
    ///
    /// With the value written as 0.d₁d₂…dₙ × 10ᴱ (no leading or trailing zeros in the
    /// digits):
    /// - zero is `o`;
    /// - a positive value is `p`, then E + 500 in three digits, then the digits, a space and
    ///   the plain value: `9.99` is `p501999 9.99`, `100` is `p5031 100`;
    /// - a negative value is `n`, then 499 − E in three digits, then each digit's nine's
    ///   complement, `~` and the plain value: `-9.99` is `n498000~-9.99`.
    ///
    /// `n` < `o` < `p` orders the signs; the fixed-width exponent orders magnitudes; the
    /// digits order values of one exponent (a space sorts before any digit, so `0.9` comes
    /// before `0.91`; `~` sorts after any digit, which reverses that for negatives). Equal
    /// values have equal text (`1.50` and `1.5` are both `p5015 1.5`). NaN is `NaN`.
    public var orderedText: String {
        if isNaN { return "NaN" }
        var text = description
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0].drop { $0 == "0" }
        let fraction = parts.count > 1 ? parts[1] : ""
        var digits = String(whole) + fraction
        let exponent: Int
        if whole.isEmpty {
            let leading = fraction.prefix { $0 == "0" }.count
            exponent = -leading
            digits = String(fraction.dropFirst(leading))
        } else {
            exponent = whole.count
        }
        while digits.last == "0" { digits.removeLast() }
        guard !digits.isEmpty else { return "o" }
        // The plain value, canonical (no trailing zeros after the point).
        let intCount = max(exponent, 0)
        var plain: String
        if exponent <= 0 {
            plain = "0." + String(repeating: "0", count: -exponent) + digits
        } else if digits.count <= intCount {
            plain = digits + String(repeating: "0", count: intCount - digits.count)
        } else {
            plain = String(digits.prefix(intCount)) + "." + digits.dropFirst(intCount)
        }
        func threeDigits(_ n: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, 3 - s.count)) + s
        }
        if negative {
            plain = "-" + plain
            let complement = String(digits.map { Character(String(9 - ($0.wholeNumberValue ?? 0))) })
            return "n" + threeDigits(499 - exponent) + complement + "~" + plain
        }
        return "p" + threeDigits(exponent + 500) + digits + " " + plain
    }

    /// Reads ``orderedText``; nil for any other text.
    public init?(orderedText text: String) {
        let posix = Locale(identifier: "en_US_POSIX")
        switch text.first {
        case "o" where text == "o": self = 0
        case "p":
            guard let space = text.firstIndex(of: " "), let value = Decimal(string: String(text[text.index(after: space)...]), locale: posix) else { return nil }
            self = value
        case "n":
            guard let tilde = text.firstIndex(of: "~"), let value = Decimal(string: String(text[text.index(after: tilde)...]), locale: posix) else { return nil }
            self = value
        default:
            if text == "NaN" { self = .nan } else { return nil }
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public static var databaseColumnType: String { Wrapped.databaseColumnType }
    public static var isDatabaseOptional: Bool { true }
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
