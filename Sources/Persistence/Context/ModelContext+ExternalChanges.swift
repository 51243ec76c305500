import SQLite

extension ModelContext {
    /// Brings the registered models of these entities up to date after SQL outside the context
    /// changed their rows (a bulk import that updated notes in place): each registered model
    /// without unsaved changes is re-read from its row, and its loaded relationships are
    /// dropped so they load again (a note's tags and cards); models whose rows are gone are
    /// forgotten. Models with unsaved changes are left as they are.
    ///
    /// Cost: one query per 500 registered models of each entity.
    /// - Throws: ``PersistenceError`` when the store can't be read.
    package func refreshRegisteredModels(of entityNames: Set<String>) throws {
        try refreshRegistered(entityNames: entityNames)
        for name in entityNames {
            guard let root = schema.entity(named: name)?.rootEntity, let table = registry[tableKey(root)] else { continue }
            for model in table.models where model.persistentBackingData.state == .registered && !isChanged(model) {
                model.persistentBackingData.relationships.removeAll()
            }
        }
    }
}
