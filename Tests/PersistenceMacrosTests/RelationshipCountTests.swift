import Foundation
import Testing
import PersistenceMacros
import PersistenceTestSupport

/// `@Relationship(minimumModelCount:maximumModelCount:)` is enforced at save: a save that
/// leaves a relationship out of its bounds throws `relationshipCount`, writes nothing, and
/// keeps the context's changes for the caller to fix.
@Suite struct RelationshipCountTests {
    /// The bounds the failing save reported, or nil when it didn't fail with `relationshipCount`.
    private func violation(_ save: () throws -> Void) -> (entity: String, relationship: String, count: Int, bounds: String)? {
        do {
            try save()
            return nil
        } catch PersistenceError.relationshipCount(let entity, let relationship, let count, let bounds) {
            return (entity, relationship, count, bounds)
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    private func storedState(_ container: ModelContainer) throws -> (teams: [String], members: [String]) {
        let reader = ModelContext(container)
        let teams = try reader.fetch(FetchDescriptor<Team>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        let members = try reader.fetch(FetchDescriptor<Member>(sortBy: [SortDescriptor(\.name)])).map { "\($0.name)@\($0.team?.name ?? "-")" }
        return (teams, members)
    }

    @Test(arguments: StoreKind.allCases)
    func newModelBelowMinimumIsRefused(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Team.self], in: playground)
        let context = ModelContext(container)
        let team = Team(name: "Empty")
        context.insert(team)
        let failure = try #require(violation { try context.save() })
        #expect(failure.entity == "Team" && failure.relationship == "members" && failure.count == 0 && failure.bounds == "1...3")
        #expect(String(describing: PersistenceError.relationshipCount(entity: "Team", relationship: "members", count: 0, bounds: "1...3"))
                    == "Team.members has 0 members, allowed 1...3")
        #expect(try storedState(container).teams.isEmpty)
        // The change is still pending; once fixed, the same save goes through.
        #expect(context.hasChanges)
        team.members.append(Member(name: "Ada"))
        try context.save()
        #expect(try storedState(container) == (["Empty"], ["Ada@Empty"]))
    }

    @Test(arguments: StoreKind.allCases)
    func addingBeyondMaximumToASavedModelIsRefused(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Team.self], in: playground)
        let writer = ModelContext(container)
        let team = Team(name: "Blue")
        team.members = [Member(name: "a")]
        writer.insert(team)
        try writer.save()

        // Another context sees the team only through a fetch, and edits only its links.
        let editor = ModelContext(container)
        let fetched = try #require(try editor.fetch(FetchDescriptor<Team>()).first)
        fetched.members += [Member(name: "b"), Member(name: "c"), Member(name: "d")]
        let failure = try #require(violation { try editor.save() })
        #expect(failure.count == 4 && failure.bounds == "1...3")
        #expect(try storedState(container) == (["Blue"], ["a@Blue"]))

        // Setting the member's side counts as well.
        editor.rollback()
        let late = Member(name: "e")
        editor.insert(late)
        late.team = fetched
        fetched.members.append(Member(name: "f"))
        #expect(fetched.members.count == 3)
        try editor.save()
        let extra = Member(name: "g")
        editor.insert(extra)
        extra.team = fetched
        #expect(violation { try editor.save() }?.count == 4)
        #expect(try storedState(container).members == ["a@Blue", "e@Blue", "f@Blue"])
    }

    @Test(arguments: StoreKind.allCases)
    func deletingTheLastMemberIsRefused(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Team.self], in: playground)
        let writer = ModelContext(container)
        let team = Team(name: "Solo")
        team.members = [Member(name: "only")]
        writer.insert(team)
        try writer.save()

        let editor = ModelContext(container)
        let solo = try #require(try editor.fetch(FetchDescriptor<Team>()).first)
        let member = try #require(solo.members.first)
        editor.delete(member)
        #expect(violation { try editor.save() }?.count == 0)
        #expect(try storedState(container) == (["Solo"], ["only@Solo"]))
        // Deleting the team with it is fine (the cascade takes the member along).
        editor.delete(solo)
        try editor.save()
        #expect(try storedState(container) == ([], []))
    }
}
