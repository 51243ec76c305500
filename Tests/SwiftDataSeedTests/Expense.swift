// Seed: "Saving Data with SwiftData" (Pocket Budget). The model, verbatim; the seed shows no
// `Category`, only that it must be Codable.
import Foundation
import SwiftData

enum Category: String, Codable, CaseIterable {
    case food, travel, rent, other
}

@Model
final class Expense {
    var title: String
    var amount: Decimal
    var category: Category
    var date: Date
    var note: String = ""

    init(title: String, amount: Decimal, category: Category, date: Date = .now) {
        self.title = title
        self.amount = amount
        self.category = category
        self.date = date
    }
}
