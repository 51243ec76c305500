import Foundation
import Testing
@testable import DeckFilter

@Suite struct FilterParserTests {
    private func parse(_ text: String) throws -> FilterExpression {
        try FilterParser.parse(text)
    }

    private func cmp(_ field: String, _ op: FilterOperator, _ value: FilterValue) -> FilterExpression {
        .comparison(field: field, op: op, value: value)
    }

    // MARK: The example of the brief

    @Test func theDocumentedExample() throws {
        let filter = try parse(#"front contains "chat" and (tag = "verbs" or created > 2026-01-01) and not kind = cloze"#)
        let expected: FilterExpression = .and(
            .and(
                cmp("front", .contains, .string("chat")),
                .or(cmp("tag", .equal, .string("verbs")),
                    cmp("created", .greater, .date(FilterDate(year: 2026, month: 1, day: 1))))),
            .not(cmp("kind", .equal, .string("cloze"))))
        #expect(filter == expected)
        #expect(filter.description == #"front contains "chat" and (tag = "verbs" or created > 2026-01-01) and not kind = "cloze""#)
        #expect(filter.fieldNames == ["front", "tag", "created", "kind"])
    }

    /// `is new` and `is not suspended` read as the issue writes them: short for `is = …`.
    @Test func isTakesAStateWithoutAnOperator() throws {
        #expect(try parse("is new") == cmp("is", .equal, .string("new")))
        #expect(try parse("IS Suspended and flag = 1") == .and(cmp("IS", .equal, .string("Suspended")), cmp("flag", .equal, .integer(1))))
        #expect(try parse("is not buried") == .not(cmp("is", .equal, .string("buried"))))
        #expect(try parse("is not in (new, due)") == .not(.in(field: "is", values: [.string("new"), .string("due")])))
        #expect(try parse("is = due") == cmp("is", .equal, .string("due")))
        #expect(throws: FilterSyntaxError.self) { try parse("is and flag = 1") }
        #expect(throws: FilterSyntaxError.self) { try parse("front new") }
    }

    // MARK: Precedence and grouping

    @Test func andBindsTighterThanOr() throws {
        let a = cmp("a", .equal, .integer(1)), b = cmp("b", .equal, .integer(2)), c = cmp("c", .equal, .integer(3))
        #expect(try parse("a = 1 or b = 2 and c = 3") == .or(a, .and(b, c)))
        #expect(try parse("a = 1 and b = 2 or c = 3") == .or(.and(a, b), c))
    }

    @Test func notBindsTighterThanAnd() throws {
        let a = cmp("a", .equal, .integer(1)), b = cmp("b", .equal, .integer(2))
        #expect(try parse("not a = 1 and b = 2") == .and(.not(a), b))
        #expect(try parse("not (a = 1 and b = 2)") == .not(.and(a, b)))
        #expect(try parse("not not a = 1") == .not(.not(a)))
    }

    @Test func andAndOrGroupToTheLeft() throws {
        let a = cmp("a", .equal, .integer(1)), b = cmp("b", .equal, .integer(2)), c = cmp("c", .equal, .integer(3))
        #expect(try parse("a = 1 and b = 2 and c = 3") == .and(.and(a, b), c))
        #expect(try parse("a = 1 or b = 2 or c = 3") == .or(.or(a, b), c))
        #expect(try parse("a = 1 and (b = 2 and c = 3)") == .and(a, .and(b, c)))
    }

    @Test func parenthesesOverridePrecedence() throws {
        let a = cmp("a", .equal, .integer(1)), b = cmp("b", .equal, .integer(2)), c = cmp("c", .equal, .integer(3))
        #expect(try parse("(a = 1 or b = 2) and c = 3") == .and(.or(a, b), c))
        #expect(try parse("((((a = 1))))") == a)
    }

    @Test func keywordsAreCaseInsensitive() throws {
        #expect(try parse("a CONTAINS x AND NOT b StartsWith y OR c IN (1) Or d Starts With z") ==
            .or(.or(.and(cmp("a", .contains, .string("x")), .not(cmp("b", .startsWith, .string("y")))),
                    .in(field: "c", values: [.integer(1)])),
                cmp("d", .startsWith, .string("z"))))
        #expect(try parse("done = TRUE") == cmp("done", .equal, .bool(true)))
    }

    @Test func whitespaceIsOptionalAroundSymbols() throws {
        #expect(try parse("interval>=3 and(ease<2.5)") == .and(cmp("interval", .greaterOrEqual, .integer(3)), cmp("ease", .less, .double(2.5))))
        #expect(try parse("  tag\n=\t\"x\"  ") == cmp("tag", .equal, .string("x")))
    }

    // MARK: Operators

    @Test(arguments: [
        ("=", FilterOperator.equal), ("==", .equal), ("!=", .notEqual), ("<", .less), ("<=", .lessOrEqual),
        (">", .greater), (">=", .greaterOrEqual), ("contains", .contains), ("starts with", .startsWith),
        ("startswith", .startsWith), ("STARTS   WITH", .startsWith),
    ])
    func everyOperator(text: String, op: FilterOperator) throws {
        #expect(try parse("reps \(text) 4") == cmp("reps", op, .integer(4)))
    }

    @Test func inList() throws {
        #expect(try parse(#"tag in ("verbs", nouns, 3, 2.5, 2026-01-01, true)"#) ==
            .in(field: "tag", values: [.string("verbs"), .string("nouns"), .integer(3), .double(2.5),
                                       .date(FilterDate(year: 2026, month: 1, day: 1)), .bool(true)]))
        #expect(try parse("id in (7)") == .in(field: "id", values: [.integer(7)]))
    }

    @Test func negatedOperators() throws {
        #expect(try parse("tag not in (a, b)") == .not(.in(field: "tag", values: [.string("a"), .string("b")])))
        #expect(try parse("front not contains x") == .not(cmp("front", .contains, .string("x"))))
        #expect(try parse("front not starts with x") == .not(cmp("front", .startsWith, .string("x"))))
    }

    // MARK: Values

    @Test(arguments: [
        (#""chat""#, FilterValue.string("chat")),
        (#""say \"hi\"""#, .string("say \"hi\"")),
        (#""back\\slash""#, .string("back\\slash")),
        (#""""#, .string("")),
        (#""and""#, .string("and")),
        (#""être ☕️""#, .string("être ☕️")),
        ("cloze", .string("cloze")),
        ("French::Verbs", .string("French::Verbs")),
        ("3rd", .string("3rd")),
        ("1.2.3", .string("1.2.3")),
        ("0", .integer(0)),
        ("42", .integer(42)),
        ("-7", .integer(-7)),
        ("+7", .integer(7)),
        ("9223372036854775807", .integer(Int.max)),
        ("2.5", .double(2.5)),
        ("-0.25", .double(-0.25)),
        ("1e3", .double(1000)),
        ("2.5E-2", .double(0.025)),
        ("true", .bool(true)),
        ("False", .bool(false)),
        ("2026-01-01", .date(FilterDate(year: 2026, month: 1, day: 1))),
        ("2024-02-29", .date(FilterDate(year: 2024, month: 2, day: 29))),
        ("2026-01-01T10:00:00Z", .date(FilterDate(year: 2026, month: 1, day: 1, time: .init(hour: 10, minute: 0, utcOffset: 0)))),
        ("2026-01-01T10:00", .date(FilterDate(year: 2026, month: 1, day: 1, time: .init(hour: 10, minute: 0)))),
        ("2026-06-30T23:59:59.5+02:00", .date(FilterDate(year: 2026, month: 6, day: 30,
            time: .init(hour: 23, minute: 59, second: 59, nanosecond: 500_000_000, utcOffset: 7_200)))),
        ("2026-06-30T01:02:03-05:30", .date(FilterDate(year: 2026, month: 6, day: 30,
            time: .init(hour: 1, minute: 2, second: 3, utcOffset: -19_800)))),
    ])
    func everyValueType(text: String, value: FilterValue) throws {
        #expect(try parse("x = \(text)") == cmp("x", .equal, value))
    }

    @Test func datesKnowTheirInstant() throws {
        let day = try #require(FilterDate.parse("2026-01-01"))
        #expect(day.isWholeDay)
        #expect(day.date == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(day.endOfDay == Date(timeIntervalSince1970: 1_767_225_600 + 86_400))
        let instant = try #require(FilterDate.parse("2026-01-01T10:00:00+02:00"))
        #expect(instant.date == Date(timeIntervalSince1970: 1_767_225_600 + 8 * 3_600))
        #expect(FilterDate.parse("1969-12-31T23:59:59Z")?.date == Date(timeIntervalSince1970: -1))
    }

    // MARK: Errors, each with its column

    @Test(arguments: [
        ("", 1, "the filter is empty"),
        ("   ", 1, "the filter is empty"),
        ("front contains", 16, "expected a value after 'contains'"),
        ("front =", 9, "expected a value after '='"),
        ("front = and back = 1", 9, "expected a value after '=', found the keyword 'and' (quote it to use it as text)"),
        ("front", 7, "expected an operator after 'front'"),
        (#"front "chat""#, 7, #"expected an operator after 'front', found '"chat"'"#),
        ("front starts chat", 14, "expected 'with' after 'starts', found 'chat'"),
        ("front not = 3", 11, "expected 'in', 'contains' or 'starts with' after 'not', found '='"),
        ("= 3", 1, "expected a condition, found '='"),
        (#""front" = 3"#, 1, #"expected a field name, found '"front"' (field names are not quoted)"#),
        ("123 = 4", 1, "expected a field name, found '123'"),
        ("a:b = 4", 1, "expected a field name, found 'a:b'"),
        ("and = 3", 1, "expected a condition, found the keyword 'and'"),
        ("a = 1 and", 11, "expected a condition after 'and'"),
        ("a = 1 or or b = 2", 10, "expected a condition after 'or', found the keyword 'or'"),
        ("not", 5, "expected a condition after 'not'"),
        ("(a = 1", 8, "expected ')' to close the '(' at 1:1"),
        ("(a = 1 b = 2)", 8, "expected ')' to close the '(' at 1:1, found 'b'"),
        ("()", 2, "expected a filter inside '()'"),
        ("( ", 3, "expected a condition after '('"),
        ("a = 1)", 6, "unexpected ')' with no '(' to close"),
        ("a = 1 b = 2", 7, "expected 'and' or 'or' before 'b'"),
        ("tag in", 8, "expected '(' after 'in'"),
        ("tag in x", 8, "expected '(' after 'in', found 'x'"),
        ("tag in ()", 9, "expected a value after '(', found ')'"),
        ("tag in (a,)", 11, "expected a value after ',', found ')'"),
        ("tag in (a b)", 11, "expected ',' or ')' in the list, found 'b'"),
        ("tag in (a", 11, "expected ',' or ')' in the list"),
        (#"front = "open"#, 9, #"unterminated string (add a closing '"')"#),
        (#"front = "a\qb""#, 11, #"unknown escape '\q' in a string (only \" and \\ are allowed)"#),
        ("a = 1 && b = 2", 7, "unexpected character '&' (write 'and')"),
        ("a = 1 || b = 2", 7, "unexpected character '|' (write 'or')"),
        ("front = 'x'", 9, "unexpected character ''' (quote strings with double quotes)"),
        ("!a", 1, "unexpected '!' (write 'not' or '!=')"),
        ("a = #", 5, "unexpected character '#'"),
        ("created > 2026-13-01", 11, "invalid date '2026-13-01' (write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"),
        ("created > 2026-02-29", 11, "invalid date '2026-02-29' (write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"),
        ("created > 2026-01-01T24:00:00Z", 11, "invalid date '2026-01-01T24:00:00Z' (write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"),
        ("reps > 99999999999999999999", 8, "number '99999999999999999999' out of range"),
        ("ease > 1e999", 8, "number '1e999' out of range"),
        ("être = x and café", 19, "expected an operator after 'café'"),
    ])
    func errorsNameTheirColumn(text: String, column: Int, message: String) throws {
        let error = try #require(throws: FilterSyntaxError.self) { try parse(text) }
        #expect(error.message == message)
        #expect(error.column == column)
        #expect(error.line == 1)
        #expect(error.description == "filter:1:\(column): \(message)")
    }

    @Test func errorOnALaterLine() throws {
        let error = try #require(throws: FilterSyntaxError.self) { try parse("a = 1\nand b =\n") }
        #expect(error.line == 2)
        #expect(error.column == 9)
        #expect(error.caretLine == "and b =\n        ^")
    }

    @Test func caretLinePointsAtTheColumn() throws {
        let error = try #require(throws: FilterSyntaxError.self) { try parse("front contains") }
        #expect(error.caretLine == "front contains\n               ^")
        let inside = try #require(throws: FilterSyntaxError.self) { try parse("tag = x and = 2") }
        #expect(inside.caretLine == "tag = x and = 2\n            ^")
        let tabbed = try #require(throws: FilterSyntaxError.self) { try parse("\ttag ==") }
        #expect(tabbed.caretLine == "\ttag ==\n\t       ^")
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "(", count: 5_000) + "a = 1" + String(repeating: ")", count: 5_000)
        let error = try #require(throws: FilterSyntaxError.self) { try parse(deep) }
        #expect(error.column == FilterParser.maximumNesting + 1)
        let nots = String(repeating: "not ", count: 5_000) + "a = 1"
        #expect(throws: FilterSyntaxError.self) { try parse(nots) }
        let ok = String(repeating: "(", count: 100) + "a = 1" + String(repeating: ")", count: 100)
        #expect(try parse(ok) == cmp("a", .equal, .integer(1)))
    }

    @Test func conditionCountIsBounded() throws {
        let many = Array(repeating: "a = 1", count: FilterParser.maximumConditions + 1).joined(separator: " and ")
        let error = try #require(throws: FilterSyntaxError.self) { try parse(many) }
        #expect(error.message.contains("too many conditions"))
        let enough = Array(repeating: "a = 1", count: FilterParser.maximumConditions).joined(separator: " or ")
        #expect(throws: Never.self) { try parse(enough) }
    }

    @Test func stringLengthIsBounded() throws {
        let long = "front contains \"" + String(repeating: "x", count: FilterParser.maximumStringLength + 1) + "\""
        let error = try #require(throws: FilterSyntaxError.self) { try parse(long) }
        #expect(error.message.contains("string longer than"))
        #expect(error.column == 16)
        let longest = "front contains \"" + String(repeating: "é", count: FilterParser.maximumStringLength / 2) + "\""
        #expect(throws: Never.self) { try parse(longest) }
    }

    @Test func fieldReferencesCarryTheirColumns() throws {
        let references = try FilterParser.fieldReferences(in: "front = x and\n  (tag in (a) or frnt contains y)")
        #expect(references == [
            FilterFieldReference(name: "front", line: 1, column: 1),
            FilterFieldReference(name: "tag", line: 2, column: 4),
            FilterFieldReference(name: "frnt", line: 2, column: 18),
        ])
    }
}
