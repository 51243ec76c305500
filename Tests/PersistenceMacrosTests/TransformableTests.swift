import Foundation
import Testing
import PersistenceMacros
import PersistenceTestSupport

/// `@Attribute(.transformable(by:))`: a value of any type, stored as the Data a
/// `ValueTransformer` makes (a BLOB column) and read back through its reverse.
@Suite struct TransformableTests {
    init() {
        ValueTransformer.setValueTransformer(LabelsTransformer(), forName: LabelsTransformer.name)
    }

    private func strings(_ array: NSArray?) -> [String]? {
        array.map { $0.map { String(describing: $0) } }
    }

    @Test(arguments: StoreKind.allCases)
    func valuesRoundTripThroughTheirTransformer(kind: StoreKind) throws {
        let playground = try Playground()
        let container = try kind.container([Swatch.self, HandSwatch.self], in: playground)
        let ddl = container.schema.makeDDL().joined(separator: "\n")
        #expect(ddl.contains("\"color\" BLOB") && ddl.contains("\"background\" BLOB NOT NULL") && ddl.contains("\"labels\" BLOB"), "\(ddl)")

        let writer = ModelContext(container)
        let sea = Swatch(name: "sea", background: RGB(255, 255, 255))
        sea.color = RGB(0, 105, 148)
        sea.labels = NSArray(array: [NSString(string: "blue"), NSString(string: "cold")])
        writer.insert(sea)
        writer.insert(Swatch(name: "blank", background: RGB(1, 2, 3)))
        let hand = HandSwatch()
        hand.color = RGB(9, 8, 7)
        writer.insert(hand)
        try writer.save()

        let reader = ModelContext(container)
        let swatches = try reader.fetch(FetchDescriptor<Swatch>(sortBy: [SortDescriptor(\.name)]))
        #expect(swatches.map(\.name) == ["blank", "sea"])
        #expect(swatches[1].color == RGB(0, 105, 148) && swatches[1].background == RGB(255, 255, 255))
        #expect(strings(swatches[1].labels) == ["blue", "cold"])
        #expect(swatches[0].color == nil && swatches[0].labels == nil && swatches[0].background == RGB(1, 2, 3))
        #expect(try reader.fetch(FetchDescriptor<HandSwatch>()).first?.color == RGB(9, 8, 7))

        // A new value is a change, saved like any other.
        // (A keyed archive of the same array isn't byte-identical twice on Linux: unchanged
        // values are known by identity.)
        #expect(reader.changedModelsArray.map { ($0 as? Swatch)?.name ?? "\(type(of: $0))" } == [])
        swatches[1].color = RGB(1, 1, 1)
        swatches[0].labels = NSArray(array: [NSString(string: "new")])
        #expect(reader.hasChanges)
        try reader.save()
        let again = try ModelContext(container).fetch(FetchDescriptor<Swatch>(sortBy: [SortDescriptor(\.name)]))
        #expect(again[1].color == RGB(1, 1, 1) && strings(again[0].labels) == ["new"])
    }

    @Test func transformersAreRegisteredByClassName() throws {
        #expect(Schema.Attribute.Option.transformable(by: RGBTransformer.self) == .transformable(by: String(reflecting: RGBTransformer.self)))
        let registered = ValueTransformer.valueTransformer(forName: NSValueTransformerName(String(reflecting: RGBTransformer.self)))
        #expect(registered is RGBTransformer)
        // The secure archive transformer refuses classes it wasn't told to allow.
        let archive = try NSKeyedArchiver.archivedData(withRootObject: NSNumber(value: 3), requiringSecureCoding: true)
        #expect(LabelsTransformer().transformedValue(archive) == nil)
    }
}
