import Foundation
import SQLite

/// What an undoable change is about to touch. The context captures the model's state the
/// first time it is touched in the open group, before the change.
enum UndoRecord {
    /// The model is about to be inserted, deleted or un-deleted.
    case membership(any PersistentModel)
    /// A relationship of the model is about to change (the inverse side reports its own).
    case relationship(any PersistentModel, AnyKeyPath)

    var model: any PersistentModel {
        switch self { case .membership(let model), .relationship(let model, _): model }
    }
}

/// A model's undoable state: whether it is part of the context, its attributes and its
/// relationship contents.
struct UndoModelState {
    /// Whether the model is (pending or stored) part of the context's contents.
    let exists: Bool
    let attributes: [SQLValue]
    let relationships: [AnyKeyPath: RelationshipContent]

    func same(as other: UndoModelState) -> Bool {
        guard exists == other.exists, attributes == other.attributes, relationships.count == other.relationships.count else { return false }
        for (keyPath, content) in relationships {
            switch (content, other.relationships[keyPath]) {
            case (.toOne(let a), .toOne(let b)?): if a !== b { return false }
            case (.toMany(let a, _), .toMany(let b, _)?):
                if a.count != b.count || zip(a, b).contains(where: { $0 !== $1 }) { return false }
            default: return false
            }
        }
        return true
    }
}

/// One step of undo: the states of the models it touched, before and after.
struct UndoGroup {
    /// What the step did, for a menu or a message (``ModelContext/setUndoActionName(_:)``).
    var name = ""
    var models: [ObjectIdentifier: any PersistentModel] = [:]
    var before: [ObjectIdentifier: UndoModelState] = [:]
    var after: [ObjectIdentifier: UndoModelState] = [:]
}

/// The undo bookkeeping of one context.
struct UndoState {
    var isEnabled = false
    var levels = 100
    var undoStack: [UndoGroup] = []
    var redoStack: [UndoGroup] = []
    /// The open group: models touched since the last boundary, with their states before.
    var open = UndoGroup()
    /// Attribute values at the last boundary, for models changed since they were stored.
    var baselines: [ObjectIdentifier: [SQLValue]] = [:]
    /// Nesting of explicit `beginUndoGrouping` calls.
    var groupingLevel = 0
    /// True while undo or redo applies states (changes then are not recorded).
    var isApplying = false
    /// Models brought back by undo or redo after a save removed their rows, with the keys
    /// they had: the next save stores them under those keys again when the keys are free,
    /// so a model's identifier survives undo and redo (held strongly until then).
    var restoredKeys: [ObjectIdentifier: (model: any PersistentModel, key: Int64)] = [:]

    mutating func reset() {
        undoStack.removeAll()
        redoStack.removeAll()
        open = UndoGroup()
        baselines.removeAll()
        groupingLevel = 0
        restoredKeys.removeAll()
    }
}

extension ModelContext {
    // MARK: Public API

    /// Whether the context records changes for ``undo()`` and ``redo()`` (off by default, as
    /// for a SwiftData context without an undo manager).
    ///
    /// Recording costs a check per insert, delete and relationship change, and a scan of the
    /// registered models at each group boundary (to find attribute changes, which are plain
    /// stored properties). Turning it on or off forgets the stacks.
    public var isUndoEnabled: Bool {
        get { undoState.isEnabled }
        set {
            undoState.reset()
            undoState.isEnabled = newValue
        }
    }

    /// The most undo groups kept; older ones are forgotten (default 100; 0 keeps every group).
    public var undoLevels: Int {
        get { undoState.levels }
        set {
            undoState.levels = max(0, newValue)
            trimUndoStack()
        }
    }

    /// Whether ``undo()`` has a group to revert (the open group is closed first).
    public var canUndo: Bool {
        closeOpenUndoGroupIfAutomatic()
        return !undoState.undoStack.isEmpty
    }

    /// Whether ``redo()`` has a group to re-apply.
    public var canRedo: Bool { !undoState.redoStack.isEmpty }

    /// Starts an explicit group: every change until the matching ``endUndoGrouping()`` is
    /// undone as one step. Groups nest; changes made before are closed into their own group.
    public func beginUndoGrouping() {
        guard undoState.isEnabled else { return }
        if undoState.groupingLevel == 0 { closeUndoGroup() }
        undoState.groupingLevel += 1
    }

    /// Ends an explicit group started by ``beginUndoGrouping()``.
    public func endUndoGrouping() {
        guard undoState.isEnabled, undoState.groupingLevel > 0 else { return }
        undoState.groupingLevel -= 1
        if undoState.groupingLevel == 0 { closeUndoGroup() }
    }

    /// Reverts the last group of changes: inserted models are removed again, deleted ones
    /// (with their cascades) come back, attributes and relationships take their earlier
    /// values. The result is unsaved, like any change; save to store it.
    public func undo() {
        guard undoState.isEnabled else { return }
        undoState.groupingLevel = 0
        closeUndoGroup()
        guard let group = undoState.undoStack.popLast() else { return }
        apply(group.before, of: group)
        undoState.redoStack.append(group)
    }

    /// Re-applies the last undone group.
    public func redo() {
        guard undoState.isEnabled else { return }
        undoState.groupingLevel = 0
        closeUndoGroup()
        guard let group = undoState.redoStack.popLast() else { return }
        apply(group.after, of: group)
        undoState.undoStack.append(group)
    }

    /// Forgets every undo and redo step.
    public func removeAllUndoActions() {
        let restored = undoState.restoredKeys
        undoState.reset()
        // Models already brought back keep their claim to their keys.
        undoState.restoredKeys = restored
    }

    /// Names the step being recorded (the open group), as `UndoManager.setActionName(_:)`
    /// does: ``undoActionName`` and ``redoActionName`` return it once the step is closed.
    public func setUndoActionName(_ name: String) {
        guard undoState.isEnabled else { return }
        undoState.open.name = name
    }

    /// The name of the step ``undo()`` would revert ("" when it has none or there is none).
    public var undoActionName: String {
        closeOpenUndoGroupIfAutomatic()
        return undoState.undoStack.last?.name ?? ""
    }

    /// The name of the step ``redo()`` would re-apply ("" when it has none or there is none).
    public var redoActionName: String { undoState.redoStack.last?.name ?? "" }

    // MARK: Recording

    /// Captures the state of a model about to change, once per group.
    func recordUndo(_ record: UndoRecord) {
        guard undoState.isEnabled, !undoState.isApplying else { return }
        let model = record.model
        let id = ObjectIdentifier(model)
        guard undoState.open.before[id] == nil else { return }
        undoState.open.models[id] = model
        undoState.open.before[id] = captureState(of: model, attributes: undoBaseline(of: model))
    }

    /// At a save (``processPendingChanges()``): ends an automatic group; inside an explicit
    /// group, records the attribute changes made so far, since the save makes the changed
    /// values the stored ones and they could not be told from the baseline afterwards.
    func endAutomaticUndoGroup() {
        if undoState.isEnabled && undoState.groupingLevel > 0 && !undoState.isApplying { recordAttributeChanges() }
        closeOpenUndoGroupIfAutomatic()
    }

    private func closeOpenUndoGroupIfAutomatic() {
        if undoState.isEnabled && undoState.groupingLevel == 0 { closeUndoGroup() }
    }

    /// Ends the open group: finds attribute changes, captures every touched model's state
    /// after, and pushes the group when something differs.
    func closeUndoGroup() {
        guard undoState.isEnabled, !undoState.isApplying else { return }
        recordAttributeChanges()
        var group = undoState.open
        undoState.open = UndoGroup()
        guard !group.before.isEmpty else { return }
        for (id, model) in group.models {
            let after = captureState(of: model, attributes: nil)
            group.after[id] = after
            undoState.baselines[id] = after.attributes
            if let before = group.before[id], before.same(as: after) {
                group.models[id] = nil
                group.before[id] = nil
                group.after[id] = nil
            }
        }
        guard !group.models.isEmpty else { return }
        undoState.undoStack.append(group)
        undoState.redoStack.removeAll()
        trimUndoStack()
    }

    /// Adds to the open group the models whose attributes differ from their baseline
    /// (attribute changes are plain stores to properties: nothing reports them).
    private func recordAttributeChanges() {
        var candidates: [any PersistentModel] = insertionOrder
        for models in registry.values { candidates.append(contentsOf: models.models) }
        for model in candidates {
            let id = ObjectIdentifier(model)
            guard undoState.open.before[id] == nil, let entity = entity(of: model),
                  let baseline = undoBaseline(of: model) else { continue }
            var changed = false
            for (index, attribute) in entity.attributes.enumerated() where attribute.read(model) != baseline[index] {
                changed = true
                break
            }
            if changed {
                undoState.open.models[id] = model
                undoState.open.before[id] = captureState(of: model, attributes: baseline)
            }
        }
    }

    private func trimUndoStack() {
        if undoState.levels > 0 && undoState.undoStack.count > undoState.levels {
            undoState.undoStack.removeFirst(undoState.undoStack.count - undoState.levels)
        }
    }

    /// The attribute values a model had at the last boundary: recorded ones, else the stored
    /// values of a registered model; nil for a model with neither.
    private func undoBaseline(of model: any PersistentModel) -> [SQLValue]? {
        if let values = undoState.baselines[ObjectIdentifier(model)] { return values }
        guard let snapshot = model.persistentBackingData.snapshot, let entity = entity(of: model) else { return nil }
        return Array(snapshot.prefix(entity.attributes.count))
    }

    /// Whether the model is part of the context's contents now.
    private func isPresent(_ model: any PersistentModel) -> Bool {
        guard model.persistentBackingData.context === self else { return false }
        switch model.persistentBackingData.state {
        case .inserted, .registered: return true
        case .deleted, .detached: return false
        }
    }

    /// Whether the model has a row in the store that this context knows of.
    private func hasRow(_ model: any PersistentModel) -> Bool {
        guard model.persistentBackingData.context === self else { return false }
        switch model.persistentBackingData.state {
        case .registered, .deleted: return true
        case .inserted, .detached: return false
        }
    }

    private func captureState(of model: any PersistentModel, attributes: [SQLValue]?) -> UndoModelState {
        guard let entity = entity(of: model) else { return UndoModelState(exists: false, attributes: [], relationships: [:]) }
        // Load every relationship of a stored model so the state is complete (an unsaved
        // model's unloaded relationships are left alone: loading would find nothing yet).
        if hasRow(model) {
            let wasApplying = undoState.isApplying
            undoState.isApplying = true
            for relationship in entity.relationships where model.persistentBackingData.relationships[relationship.keyPath] == nil {
                _ = relatedModelsOrRecordError(of: model, relationship, entity: entity)
            }
            undoState.isApplying = wasApplying
        }
        return UndoModelState(exists: isPresent(model), attributes: attributes ?? entity.attributes.map { $0.read(model) },
                              relationships: model.persistentBackingData.relationships)
    }

    // MARK: Applying

    private func apply(_ states: [ObjectIdentifier: UndoModelState], of group: UndoGroup) {
        undoState.isApplying = true
        defer { undoState.isApplying = false }
        for (id, state) in states {
            guard let model = group.models[id], let entity = entity(of: model) else { continue }
            setPresence(model, state.exists)
            // A model inserted anew (its row was deleted by a save since) has no stored links.
            let insertedAnew = model.persistentBackingData.state == .inserted
            for (index, attribute) in entity.attributes.enumerated() where index < state.attributes.count && attribute.read(model) != state.attributes[index] {
                _ = attribute.write(model, state.attributes[index])
                model.persistentBackingData._$attributesWritten = true  // a change the next save stores
            }
            undoState.baselines[id] = state.attributes
            for (keyPath, content) in state.relationships {
                switch content {
                case .toOne:
                    model.persistentBackingData.relationships[keyPath] = content
                case .toMany(let current, let capturedOriginal):
                    // Keep the links as last stored: saves since the capture moved them.
                    var original = capturedOriginal
                    if case .toMany(_, let stored)? = model.persistentBackingData.relationships[keyPath] { original = stored }
                    if insertedAnew { original = [] }
                    model.persistentBackingData.relationships[keyPath] = .toMany(current: current, original: original)
                }
            }
        }
    }

    /// Makes a model part of the context's contents, or not, without delete rules (the
    /// group restores related models itself).
    private func setPresence(_ model: any PersistentModel, _ present: Bool) {
        guard isPresent(model) != present else { return }
        let id = ObjectIdentifier(model)
        let backing = model.persistentBackingData
        if present {
            if hasRow(model) {
                backing.state = .registered
                deletedModels[id] = nil
            } else {
                // Not stored (or deleted by a save since): insert it anew, under the key
                // it had when it was stored, if any (see `restoredKeys`).
                let storedKey = backing.primaryKey > 0 ? backing.primaryKey : nil
                backing.context = nil
                backing.state = .detached
                backing.snapshot = nil
                insertModel(model)
                if let storedKey { undoState.restoredKeys[id] = (model, storedKey) }
            }
        } else if hasRow(model) {
            backing.state = .deleted
            deletedModels[id] = model
        } else {
            insertionOrder.removeAll { $0 === model }
            backing.state = .detached
            backing.context = nil
            if let restored = undoState.restoredKeys.removeValue(forKey: id) { backing.primaryKey = restored.key }
        }
    }
}
