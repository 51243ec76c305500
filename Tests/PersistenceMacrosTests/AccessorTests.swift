import Foundation
import Observation
import PersistenceTestSupport
import Testing
@testable import Persistence
import PersistenceMacros

@Model final class Harbor {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Boat.harbor) var boats: [Boat] = []
    init(name: String) { self.name = name }
}

@Model final class Boat {
    var name: String
    @Relationship var harbor: Harbor?
    @Relationship var builder: Yard
    init(name: String, builder: Yard) { self.name = name; self.builder = builder }
}

@Model final class Yard {
    var name: String
    init(name: String) { self.name = name }
}

/// The accessors `@Model` generates: `@Relationship` properties through one call each
/// (`_$getToMany`, `_$setToOptional`, … chosen by the type as written), and setters that
/// skip observation until something read the model.
@Suite struct AccessorTests {
    @Test(arguments: StoreKind.allCases)
    func relationshipsOfEveryShapeKeepInversesAndAreStored(_ kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Harbor.self, Boat.self, Yard.self], in: playground)
        let context = ModelContext(container)
        let harbor = Harbor(name: "Kiel")
        let yard = Yard(name: "HDW")
        let boat = Boat(name: "Anna", builder: yard)
        context.insert(harbor)
        harbor.boats = [boat]
        #expect(boat.harbor === harbor)
        let other = Boat(name: "Berta", builder: yard)
        other.harbor = harbor
        #expect(harbor.boats.map(\.name).sorted() == ["Anna", "Berta"])
        try context.save()

        let reader = ModelContext(container)
        let boats = try reader.fetch(FetchDescriptor<Boat>(sortBy: [SortDescriptor(\.name)]))
        #expect(boats.map(\.name) == ["Anna", "Berta"])
        #expect(boats.map { $0.harbor?.name } == ["Kiel", "Kiel"])
        #expect(boats.map(\.builder.name) == ["HDW", "HDW"])
        let harbors = try reader.fetch(FetchDescriptor<Harbor>())
        #expect(harbors.map { $0.boats.count } == [2])
        // A non-optional to-one is set like any other.
        let lurssen = Yard(name: "Lürssen")
        boats[0].builder = lurssen
        #expect(boats[0].builder === lurssen && boats[1].builder.name == "HDW")
    }

    @Test func relationshipSettersNotifyObservers() throws {
        let playground = try Playground()
        let container = try StoreKind.memory.container([Harbor.self, Boat.self, Yard.self], in: playground)
        let context = ModelContext(container)
        let yard = Yard(name: "HDW")
        let harbor = Harbor(name: "Kiel")
        let boat = Boat(name: "Anna", builder: yard)
        context.insert(boat)
        let changes = Counter()
        withObservationTracking { _ = harbor.boats } onChange: { changes.hit() }
        harbor.boats = [boat]
        #expect(changes.count == 1)
        withObservationTracking { _ = boat.harbor } onChange: { changes.hit() }
        boat.harbor = nil
        #expect(changes.count == 2)
        withObservationTracking { _ = boat.builder } onChange: { changes.hit() }
        boat.builder = Yard(name: "Lürssen")
        #expect(changes.count == 3)
    }

    @Test func settersTakeTheObservedPathOnlyAfterARead() {
        let yard = Yard(name: "HDW")
        // The initializer's assignment and later writes store without a registrar.
        yard.name = "Blohm"
        #expect(!yard.persistentBackingData._$isObserved && !yard.persistentBackingData.hasRegistrar)
        let changes = Counter()
        withObservationTracking { _ = yard.name } onChange: { changes.hit() }
        #expect(yard.persistentBackingData._$isObserved && yard.persistentBackingData.hasRegistrar)
        yard.name = "Voss"
        #expect(changes.count == 1 && yard.name == "Voss")
    }
}
