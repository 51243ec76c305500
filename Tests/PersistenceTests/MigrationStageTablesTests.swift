import Foundation
import Testing
import SQLite
@testable import Persistence
import PersistenceTestSupport

// Two versions of a blog: V2 makes `summary` non-optional (default "none") and adds labels, a
// many-to-many relationship whose join table the custom stage's `didMigrate` fills.

enum BlogV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Post.self] }

    final class Post: PersistentModel {
        var title: String = ""
        var summary: String? = nil
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("title", \Post.title),
            .attribute("summary", \Post.summary),
        ]
        let persistentBackingData = BackingData()
        init() {}
        init(title: String, summary: String?) { (self.title, self.summary) = (title, summary) }
    }
}

enum BlogV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Post.self, Label.self] }

    final class Post: PersistentModel {
        var title: String = ""
        var summary: String = "none"
        var labels: [Label] {
            get { getValue(forKey: \.labels) }
            set { setValue(forKey: \.labels, to: newValue) }
        }
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("title", \Post.title),
            .attribute("summary", \Post.summary),
            .relationship("labels", \Post.labels, inverse: \Label.posts),
        ]
        let persistentBackingData = BackingData()
        init() {}
    }

    final class Label: PersistentModel {
        var name: String = ""
        var posts: [Post] {
            get { getValue(forKey: \.posts) }
            set { setValue(forKey: \.posts, to: newValue) }
        }
        static let schemaMetadata: [Schema.PropertyMetadata] = [
            .attribute("name", \Label.name),
            .relationship("posts", \Label.posts, inverse: \Post.labels),
        ]
        let persistentBackingData = BackingData()
        init() {}
        init(name: String) { self.name = name }
    }
}

enum BlogPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [BlogV1.self, BlogV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: BlogV1.self, toVersion: BlogV2.self, willMigrate: nil, didMigrate: { context in
            let label = BlogV2.Label(name: "imported")
            context.insert(label)
            for post in try context.fetch(FetchDescriptor<BlogV2.Post>()) { post.labels = [label] }
        })]
    }
}

/// What a stage's structural change leaves for `didMigrate`: the new version's join tables
/// exist, and a column made non-optional holds the model's default where it was NULL.
@Suite struct MigrationStageTablesTests {
    @Test func didMigrateFillsANewJoinTableAndNullsGetTheDefault() throws {
        let playground = try Playground()
        let url = playground.file("blog.store")
        do {
            let container = try ModelContainer(for: BlogV1.schema, configurations: [ModelConfiguration(url: url)])
            let context = ModelContext(container)
            context.insert(BlogV1.Post(title: "first", summary: nil))
            context.insert(BlogV1.Post(title: "second", summary: "about two"))
            try context.save()
            try container.close()
        }
        let container = try ModelContainer(for: BlogV2.schema, migrationPlan: BlogPlan.self, configurations: [ModelConfiguration(url: url)])
        // The context stays alive while its models' relationships are read (models don't own it).
        let context = ModelContext(container)
        let posts = try context.fetch(FetchDescriptor<BlogV2.Post>(sortBy: [SortDescriptor(\.title)]))
        #expect(posts.map(\.summary) == ["none", "about two"])
        #expect(posts.map { $0.labels.map(\.name) } == [["imported"], ["imported"]])
        let (violations, targetIndex) = try container.withDatabase(for: BlogV2.Post.self) { db in
            (try db.foreignKeyViolations(),
             try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'Label_posts_target'", as: Int.self))
        }
        #expect(violations == 0 && targetIndex == 1)
        try container.close()
        #expect(try MigrationTests.storeVersion(url) == "2.0.0")
    }
}
