import Anki
import Foundation
import Testing
@testable import Interchange

/// A value out of range is refused naming the package, the column and the row, as
/// docs/FORMAT.md words it (`cards.due of card 17 is out of range`).
@Suite struct AnkiValueCheckTests {
    static func review(id: Int64 = 1_700_000_000_000, ease: Int = 3, timeTaken: Int64 = 6_000) -> AnkiReview {
        AnkiReview(id: id, cardID: 17, ease: ease, interval: 10, lastInterval: 4, factor: 2_500, timeTaken: timeTaken,
                   kind: AnkiReview.Kind(rawValue: 1))
    }

    @Test func aReviewOutOfRangeIsNamed() throws {
        let check = AnkiValueCheck(path: "x.apkg")
        #expect(try check.review(Self.review()).time == 1_700_000_000_000)
        for (review, column) in [(Self.review(ease: 9), "revlog.ease"), (Self.review(timeTaken: -1), "revlog.time"),
                                 (Self.review(id: Int64.max), "revlog.id")] {
            let error = #expect(throws: InterchangeError.self) { try check.review(review) }
            #expect(error?.path == "x.apkg")
            #expect(error?.reason == "\(column) of review \(review.id) is out of range")
        }
    }
}
