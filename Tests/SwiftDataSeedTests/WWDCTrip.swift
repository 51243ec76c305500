// Seed: "Dive deeper into SwiftData" (WWDC23). The Trip model, verbatim (in a namespace: the
// Wishlist seed has a Trip too), and the two models it relates to, which the session doesn't show.
import Foundation
import SwiftData

enum WWDC23 {
    @Model
    final class Trip {
        var destination: String?
        var end_date: Date?
        var name: String?
        var start_date: Date?
      
        @Relationship(.cascade)
        var bucketListItem: [BucketListItem] = [BucketListItem]()
      
        @Relationship(.cascade)
        var livingAccommodation: LivingAccommodation?
    }

    @Model
    final class BucketListItem {
        var title: String
        var hasReservation: Bool
        init(title: String, hasReservation: Bool) {
            self.title = title
            self.hasReservation = hasReservation
        }
    }

    @Model
    final class LivingAccommodation {
        var placeName: String
        var hasReservation: Bool = false
        init(placeName: String) { self.placeName = placeName }
    }
}
