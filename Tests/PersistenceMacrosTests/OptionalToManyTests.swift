import Foundation
import Observation
import Testing
import PersistenceMacros
import PersistenceTestSupport

// Models as a CloudKit-synced SwiftData app writes them: every to-many relationship optional,
// with `@Relationship` and without.
@Model final class Album {
    var title: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Track.album) var tracks: [Track]? = []
    var liners: [Liner]? = []
    init(title: String) { self.title = title }
}

@Model final class Track {
    var name: String = ""
    var album: Album?
    init(name: String) { self.name = name }
}

@Model final class Liner {
    var text: String = ""
    init(text: String) { self.text = text }
}

/// The same shape written by hand, without the macro.
final class Playlist: PersistentModel {
    var name: String = ""
    var songs: [Song]? {
        get { getValue(forKey: \.songs) }
        set { setValue(forKey: \.songs, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [
        .attribute("name", \Playlist.name),
        .relationship("songs", \Playlist.songs, deleteRule: .cascade, inverse: \Song.playlist),
    ]
    let persistentBackingData = BackingData()
    init() {}
    init(name: String) { self.name = name }
}

final class Song: PersistentModel {
    var title: String = ""
    var playlist: Playlist? {
        get { getValue(forKey: \.playlist) }
        set { setValue(forKey: \.playlist, to: newValue) }
    }
    static let schemaMetadata: [Schema.PropertyMetadata] = [.attribute("title", \Song.title), .relationship("playlist", \Song.playlist)]
    let persistentBackingData = BackingData()
    init() {}
    init(title: String) { self.title = title }
}

@Suite struct OptionalToManyTests {
    @Test(arguments: StoreKind.allCases)
    func optionalToManyRelationshipsRoundTripAndKeepTheirInverses(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Album.self], in: playground)
        let writer = ModelContext(container)
        let album = Album(title: "Blue")
        let first = Track(name: "All I Want"), second = Track(name: "River")
        album.tracks = [first]
        album.tracks?.append(second)
        album.liners = [Liner(text: "1971")]
        #expect(first.album === album && second.album === album)
        writer.insert(album)
        try writer.save()

        let reader = ModelContext(container)
        let read = try #require(try reader.fetch(FetchDescriptor<Album>()).first)
        #expect(read.tracks?.map(\.name).sorted() == ["All I Want", "River"])
        #expect(read.liners?.map(\.text) == ["1971"])
        let track = try #require(try reader.fetch(FetchDescriptor<Track>(predicate: #Predicate { $0.name == "River" })).first)
        #expect(track.album === read)

        // Setting nil removes every member; reading gives [] then, as the store keeps no nil.
        read.liners = nil
        #expect(read.liners == [])
        // Setting the to-one side moves the track out of the album's list.
        track.album = nil
        #expect(read.tracks?.map(\.name) == ["All I Want"])
        try reader.save()
        // (A context must outlive the models read through it: they don't keep it alive.)
        let rereader = ModelContext(container)
        let again = try #require(try rereader.fetch(FetchDescriptor<Album>()).first)
        #expect(again.tracks?.map(\.name) == ["All I Want"] && again.liners == [])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Track>()) == 2)

        // Cascade through the optional list.
        let deleter = ModelContext(container)
        deleter.delete(try #require(try deleter.fetch(FetchDescriptor<Album>()).first))
        try deleter.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Track>()) == 1)
    }

    @Test func anOptionalToManyIsObservedAndUndone() throws {
        let container = try ModelContainer(for: Album.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.isUndoEnabled = true
        let album = Album(title: "Court and Spark")
        context.insert(album)
        try context.save()
        let changes = Counter()
        withObservationTracking { _ = album.tracks } onChange: { changes.hit() }
        album.tracks = [Track(name: "Help Me")]
        #expect(changes.count == 1)
        context.processPendingChanges()
        context.undo()
        #expect(album.tracks == [])
    }

    @Test(arguments: StoreKind.allCases)
    func theHandWrittenFormWorksToo(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Playlist.self], in: playground)
        let context = ModelContext(container)
        let list = Playlist(name: "Road")
        list.songs = [Song(title: "Carey"), Song(title: "California")]
        context.insert(list)
        try context.save()
        let reader = ModelContext(container)
        let read = try #require(try reader.fetch(FetchDescriptor<Playlist>()).first)
        #expect(read.songs?.map(\.title).sorted() == ["California", "Carey"])
        #expect(read.songs?.first?.playlist === read)
    }
}
