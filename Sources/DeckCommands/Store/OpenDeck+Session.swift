import DeckDocument
import SQLite

extension OpenDeck {
    /// Runs `body` with the store's raw connection (for the session's undo log and saving).
    func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        try Self.mapping(path) { try document.container.withDatabase(for: Card.self, body) }
    }
}
