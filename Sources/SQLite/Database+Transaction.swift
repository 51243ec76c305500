/// How a transaction takes its locks.
public enum TransactionKind: String, Sendable {
    /// Takes locks on first read or write (SQLite's default).
    case deferred = "DEFERRED"
    /// Takes the write lock at once: the right choice for a transaction that will write,
    /// since it waits for (or fails on) other writers before doing any work.
    case immediate = "IMMEDIATE"
    /// Like immediate; in WAL mode the same as immediate.
    case exclusive = "EXCLUSIVE"
}

extension Database {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Nested calls become savepoints, so an inner failure rolls back only the inner work.
    /// - Throws: the error `body` throws, or ``DatabaseError`` from BEGIN or COMMIT
    ///   (`busy` when another connection holds the write lock past the busy timeout).
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if isInTransaction {
            return try savepoint("nested", body)
        }
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body()
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
        return result
    }

    /// Runs `body` inside a savepoint: released when it returns, rolled back to when it throws.
    public func savepoint<T>(_ name: String = "savepoint", _ body: () throws -> T) throws -> T {
        let quoted = quoteIdentifier(name)
        try execute("SAVEPOINT \(quoted)")
        do {
            let result = try body()
            try execute("RELEASE \(quoted)")
            return result
        } catch {
            try? execute("ROLLBACK TO \(quoted)")
            try? execute("RELEASE \(quoted)")
            throw error
        }
    }
}
