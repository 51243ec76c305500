import Foundation
import Persistence
import SQLite

/// Why a deck could not be created, opened, saved or migrated: the path and the reason.
///
/// ``description`` reads `<path>: <reason>`. ``kind`` tells a command-line tool which exit
/// status fits (65 for ``Kind/notADeck``/``Kind/corrupt``/``Kind/newerVersion``, 66 for
/// ``Kind/missing``, 73 for ``Kind/alreadyExists``/``Kind/readOnly``, 74 for ``Kind/io``).
public struct DeckError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The class of failure.
    public enum Kind: String, Sendable, CaseIterable {
        /// The path is not a `.sampledeck` package (foreign manifest, missing store, not a directory).
        case notADeck
        /// Nothing exists at the path.
        case missing
        /// The deck was written by a newer format version than this program knows.
        case newerVersion
        /// Creating a deck where something already exists.
        case alreadyExists
        /// Another process (or document) has the deck open for writing.
        case inUse
        /// The manifest or store is damaged.
        case corrupt
        /// Writing to a deck opened read-only, or to a location that can't be written.
        case readOnly
        /// Reading or writing files failed.
        case io
    }

    /// The file or package the error is about.
    public let path: String
    /// What is wrong, in words.
    public let reason: String
    public let kind: Kind

    public init(path: String, reason: String, kind: Kind) {
        self.path = path
        self.reason = reason
        self.kind = kind
    }

    public var description: String { "\(path): \(reason)" }

    /// The kind for a failure of SQLite or the persistence layer on a deck's store: ``Kind/io``
    /// for a full disk, a failed read or write or a file that can't be opened,
    /// ``Kind/inUse`` for a lock held by another connection, ``Kind/corrupt`` otherwise
    /// (a damaged store, a store that doesn't fit the models).
    static func kind(of error: any Error) -> Kind {
        let database: DatabaseError? = switch error {
        case let error as DatabaseError: error
        case PersistenceError.database(let error): error
        default: nil
        }
        guard let database else { return .corrupt }
        switch database.code {
        case DatabaseError.full, DatabaseError.ioError, DatabaseError.cantOpen: return .io
        case DatabaseError.busy, DatabaseError.locked: return .inUse
        default: return .corrupt
        }
    }
}
