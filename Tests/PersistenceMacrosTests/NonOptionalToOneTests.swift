import Foundation
import PersistenceTestSupport
import Testing
@testable import Persistence
import PersistenceMacros

/// A non-optional to-one without an inverse (`Yard` is AccessorTests' model).
@Model final class Builder {
    var name: String
    @Relationship var yard: Yard
    init(name: String, yard: Yard) { self.name = name; self.yard = yard }
}

/// A non-optional to-one whose destination lists its models (the inverse on the to-many side).
@Model final class Dock {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \Ship.dock) var ships: [Ship] = []
    init(name: String) { self.name = name }
}

@Model final class Ship {
    var name: String
    var dock: Dock
    init(name: String, dock: Dock) { self.name = name; self.dock = dock }
}

/// Non-optional to-one relationships, stored and read back by other contexts and containers
/// (the macro form; PersistenceTests has the hand-written one).
@Suite struct NonOptionalToOneTests {
    @Test(arguments: StoreKind.allCases)
    func withoutInverseIsReadBackByAnotherContext(_ kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Builder.self, Yard.self], in: playground)
        let context = ModelContext(container)
        // Set before the insert (in the initializer) and after it.
        let builder = Builder(name: "Anna", yard: Yard(name: "HDW"))
        context.insert(builder)
        let later = Builder(name: "Berta", yard: Yard(name: "HDW 2"))
        context.insert(later)
        later.yard = Yard(name: "Lürssen")
        try context.save()

        func check(_ context: ModelContext) throws {
            let builders = try context.fetch(FetchDescriptor<Builder>(sortBy: [SortDescriptor(\.name)]))
            #expect(builders.map(\.name) == ["Anna", "Berta"])
            #expect(builders.map(\.yard.name) == ["HDW", "Lürssen"])
        }
        try check(ModelContext(container))
        if kind == .file {
            let reopened = try StoreKind.file.container([Builder.self, Yard.self], in: playground)
            try check(ModelContext(reopened))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func withInverseIsReadBackFromBothSides(_ kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Dock.self, Ship.self], in: playground)
        let context = ModelContext(container)
        let dock = Dock(name: "Kiel")
        context.insert(Ship(name: "Anna", dock: dock))
        #expect(dock.ships.map(\.name) == ["Anna"])
        try context.save()

        func check(_ context: ModelContext) throws {
            let ships = try context.fetch(FetchDescriptor<Ship>())
            #expect(ships.map(\.dock.name) == ["Kiel"])
            #expect(try context.fetch(FetchDescriptor<Dock>()).map { $0.ships.map(\.name) } == [["Anna"]])
        }
        try check(ModelContext(container))
        if kind == .file {
            try check(ModelContext(try StoreKind.file.container([Dock.self, Ship.self], in: playground)))
        }
    }

    /// Deleting the destination a non-optional to-one points to can't leave the reference
    /// empty: the save fails, naming the relationship, and writes nothing (SwiftData's
    /// validation of a mandatory relationship), whether or not the referring model is loaded.
    @Test(arguments: StoreKind.allCases)
    func deletingTheDestinationFailsTheSave(_ kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Builder.self, Yard.self, Dock.self, Ship.self], in: playground)
        let writer = ModelContext(container)
        writer.insert(Builder(name: "Anna", yard: Yard(name: "HDW")))
        writer.insert(Ship(name: "Berta", dock: Dock(name: "Kiel")))
        try writer.save()

        for loadReferrer in [true, false] {
            let context = ModelContext(container)
            if loadReferrer {
                _ = try context.fetch(FetchDescriptor<Builder>()).map(\.yard)
                _ = try context.fetch(FetchDescriptor<Ship>()).map(\.dock)
            }
            context.delete(try #require(try context.fetch(FetchDescriptor<Yard>()).first))
            let noYard = #expect(throws: PersistenceError.self) { try context.save() }
            #expect(noYard?.description == "Builder.yard is a non-optional relationship and would have no destination")
            context.rollback()
            // The dock's nullify rule would empty each ship's `dock`.
            context.delete(try #require(try context.fetch(FetchDescriptor<Dock>()).first))
            let noDock = #expect(throws: PersistenceError.self) { try context.save() }
            #expect(noDock?.description == "Ship.dock is a non-optional relationship and would have no destination")
            context.rollback()
        }
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Builder>()).map(\.yard.name) == ["HDW"])
        #expect(try reader.fetch(FetchDescriptor<Ship>()).map(\.dock.name) == ["Kiel"])
    }
}
