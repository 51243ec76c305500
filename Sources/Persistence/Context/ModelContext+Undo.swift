/// What an undoable change touched (the undo stack is built on these records).
enum UndoRecord {
    case relationship(any PersistentModel, AnyKeyPath)
}

extension ModelContext {
    func recordUndo(_ record: UndoRecord) {}
}
