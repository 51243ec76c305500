import ArgumentParsing
import Archive
import DeckDocument
import DeckFilter
import Interchange
import Persistence
import SQLite

/// Turns errors of the lower layers into ``CommandFailure``s with the tool's exit statuses.
enum ErrorMapping {
    /// `path` names the file a failure is about when the error doesn't say; `deck`, when
    /// given, is the deck being read while `path` is written: a deck's own faults (a missing
    /// or damaged media file, bad rows) name it, never the output made from it.
    static func map(_ error: any Error, path: String? = nil, deck: String? = nil) -> any Error {
        switch error {
        case is any CommandError, is ValidationError, is ExitCode, is CleanExit:
            return error
        case let error as FilterSyntaxError:
            return ValidationError("--where: \(error.description)")
        case let error as SearchQueryError:
            return ValidationError("search: \(error.message)")
        case let error as CSVError:
            if case .io = error.reason {
                return CommandFailure(.noInput, path: error.path ?? path, reason: error.message)
            }
            let line = error.line.map { "line \($0): " } ?? ""
            return CommandFailure(.dataError, path: error.path ?? path, reason: line + error.message)
        case let error as ArchiveError:
            let code: ExitCode = switch error.kind {
            case .malformed, .unsafeEntry, .limitExceeded: .dataError
            case .alreadyExists: .cantCreate
            case .io, .invalidArgument: .ioError
            }
            let entry = error.entry.map { "\($0): " } ?? ""
            return CommandFailure(code, path: path ?? error.path, reason: entry + error.reason)
        case let error as InterchangeError:
            let code: ExitCode = switch error.kind {
            case .malformed: .dataError
            case .missing: .noInput
            case .cannotCreate: .cantCreate
            case .io: .ioError
            case .unsupported: .usage
            }
            return CommandFailure(code, path: path ?? error.path, reason: error.reason)
        case let error as DeckError:
            let code: ExitCode = switch error.kind {
            case .notADeck, .newerVersion, .corrupt: .dataError
            case .missing: .noInput
            case .alreadyExists, .readOnly: .cantCreate
            case .inUse, .io: .ioError
            }
            // Bad data names the deck that holds it, not the file being written from it.
            switch error.kind {
            case .notADeck, .newerVersion, .corrupt, .missing:
                return CommandFailure(code, path: deck ?? (error.kind == .corrupt ? error.path : path ?? error.path), reason: error.reason)
            case .alreadyExists, .readOnly, .inUse, .io:
                return CommandFailure(code, path: path ?? error.path, reason: error.reason)
            }
        case let error as DatabaseError:
            return CommandFailure(databaseExitCode(error), path: path, reason: error.description)
        case let error as PersistenceError:
            switch error {
            case .database(let database):
                return CommandFailure(databaseExitCode(database), path: path, reason: database.description)
            case .invalidStoredValue, .incompatibleStore, .unknownEntity, .relationshipCount:
                // Rows that don't fit the deck's models (a store edited or damaged outside
                // SampleDeck, a table without a key left for a new row) are bad data, as
                // `OpenDeck` maps them.
                return CommandFailure(.dataError, path: path, reason: "the store holds data that is not a valid deck: \(error)")
            default:
                return CommandFailure(.failure, path: path, reason: error.description)
            }
        default:
            return CommandFailure(.failure, path: path, reason: String(describing: error))
        }
    }

    /// A full disk or failed read/write is an I/O error (74), a damaged store bad data (65),
    /// and so is a statement stopped by its work limit (a store built to make queries hang).
    static func databaseExitCode(_ error: DatabaseError) -> ExitCode {
        if error.isWorkLimitExceeded { return .dataError }
        return switch error.code {
        case DatabaseError.ioError, DatabaseError.full, DatabaseError.readOnly, DatabaseError.cantOpen: .ioError
        case DatabaseError.corrupt, DatabaseError.notADatabase: .dataError
        default: .failure
        }
    }

    /// Runs `body`, mapping any error it throws (see ``map(_:path:deck:)``).
    static func run<T>(path: String? = nil, deck: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw map(error, path: path, deck: deck)
        }
    }
}
