import Foundation

/// A position in the change history of a container's stores: pass it to
/// ``ModelContainer/fetchHistory(after:)`` to get only what came later.
///
/// Tokens are `Codable`, so a reader (another process, a sync engine) can keep its place
/// across launches.
public struct HistoryToken: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The last transaction seen, per store identifier.
    public var positions: [String: Int64]

    /// The token before any transaction.
    public init(positions: [String: Int64] = [:]) { self.positions = positions }

    public var description: String {
        positions.keys.sorted().map { "\($0):\(positions[$0] ?? 0)" }.joined(separator: ",")
    }
}

/// One save, as recorded in the store: who, when, and which models it inserted, updated and
/// deleted.
public struct HistoryTransaction: Hashable, Sendable, Identifiable {
    /// The store the save wrote to (a save touching two stores records two transactions).
    public let storeIdentifier: String
    /// The transaction's number in its store, increasing.
    public let sequence: Int64
    /// The token to resume after this transaction (it includes the positions reached in
    /// the other stores by the transactions listed before it).
    public let token: HistoryToken
    /// The saving context's ``ModelContext/author``.
    public let author: String?
    public let timestamp: Date
    public let inserted: [PersistentIdentifier]
    public let updated: [PersistentIdentifier]
    public let deleted: [PersistentIdentifier]

    public var id: String { "\(storeIdentifier)/\(sequence)" }
}
