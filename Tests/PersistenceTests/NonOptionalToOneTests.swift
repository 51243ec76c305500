import Foundation
import Testing
import SQLite
@testable import Persistence
import PersistenceTestSupport

/// A non-optional to-one relationship without an inverse, written out by hand.
final class Workshop: PersistentModel {
    var name: String = ""
    static let schemaMetadata: [Schema.PropertyMetadata] = [.attribute("name", \Workshop.name)]
    let persistentBackingData = BackingData()
    init() {}
    init(name: String) { self.name = name }
}

final class Artisan: PersistentModel {
    var name: String = ""
    var workshop: Workshop {
        get { getValue(forKey: \.workshop) }
        set { setValue(forKey: \.workshop, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \Artisan.name),
        .relationship("workshop", \Artisan.workshop),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(name: String, workshop: Workshop) { self.name = name; self.workshop = workshop }
}

/// A non-optional to-one with a to-many inverse whose delete rule cascades.
final class Guild: PersistentModel {
    var name: String = ""
    var members: [Apprentice] {
        get { getValue(forKey: \.members) }
        set { setValue(forKey: \.members, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \Guild.name),
        .relationship("members", \Guild.members, deleteRule: .cascade, inverse: \Apprentice.guild),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(name: String) { self.name = name }
}

final class Apprentice: PersistentModel {
    var name: String = ""
    var guild: Guild {
        get { getValue(forKey: \.guild) }
        set { setValue(forKey: \.guild, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \Apprentice.name),
        .relationship("guild", \Apprentice.guild, inverse: \Guild.members),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(name: String, guild: Guild) { self.name = name; self.guild = guild }
}

/// Non-optional to-one relationships stored and read back by other contexts and containers
/// (PersistenceMacrosTests has the `@Model` form).
@Suite struct NonOptionalToOneTests {
    @Test(arguments: StoreKind.allCases)
    func withoutInverseIsReadBackByAnotherContext(_ kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Artisan.self, Workshop.self], in: playground)
        let context = ModelContext(container)
        context.insert(Artisan(name: "Anna", workshop: Workshop(name: "Forge")))
        let later = Artisan(name: "Berta", workshop: Workshop(name: "Kiln"))
        context.insert(later)
        later.workshop = Workshop(name: "Loom")
        try context.save()

        func check(_ context: ModelContext) throws {
            let artisans = try context.fetch(FetchDescriptor<Artisan>(sortBy: [SortDescriptor(\.name)]))
            #expect(artisans.map(\.name) == ["Anna", "Berta"])
            #expect(artisans.map(\.workshop.name) == ["Forge", "Loom"])
        }
        try check(ModelContext(container))
        if kind == .file {
            try check(ModelContext(try StoreKind.file.container([Artisan.self, Workshop.self], in: playground)))
        }
    }

    /// A new model whose non-optional to-one was never set isn't written.
    @Test func aNewModelWithoutItsDestinationIsNotSaved() throws {
        let playground = try Playground()
        let context = ModelContext(try StoreKind.memory.container([Artisan.self, Workshop.self], in: playground))
        context.insert(Artisan())
        let error = #expect(throws: PersistenceError.self) { try context.save() }
        #expect(error?.description == "Artisan.workshop is a non-optional relationship and would have no destination")
        var stored = FetchDescriptor<Artisan>()
        stored.includePendingChanges = false
        #expect(try context.fetchCount(stored) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func deletingTheDestinationFailsTheSaveUnlessItCascades(_ kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Artisan.self, Workshop.self, Guild.self, Apprentice.self], in: playground)
        let writer = ModelContext(container)
        writer.insert(Artisan(name: "Anna", workshop: Workshop(name: "Forge")))
        writer.insert(Apprentice(name: "Berta", guild: Guild(name: "Smiths")))
        try writer.save()

        for loadReferrer in [true, false] {
            let context = ModelContext(container)
            if loadReferrer { _ = try context.fetch(FetchDescriptor<Artisan>()).map(\.workshop) }
            context.delete(try #require(try context.fetch(FetchDescriptor<Workshop>()).first))
            let error = #expect(throws: PersistenceError.self) { try context.save() }
            #expect(error?.description == "Artisan.workshop is a non-optional relationship and would have no destination")
            context.rollback()
        }
        // A model reads its relationships through its context, which it doesn't keep alive.
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Artisan>()).map(\.workshop.name) == ["Forge"])

        // The guild's cascade deletes its members with it: nothing is left pointing nowhere.
        let context = ModelContext(container)
        context.delete(try #require(try context.fetch(FetchDescriptor<Guild>()).first))
        try context.save()
        #expect(try reader.fetchCount(FetchDescriptor<Apprentice>()) == 0)
    }
}
