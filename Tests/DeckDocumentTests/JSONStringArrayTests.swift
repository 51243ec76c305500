import Testing
@testable import DeckDocument

@Suite struct JSONStringArrayTests {
    @Test func stringArrayReader() {
        #expect(JSONStringArray.parse(#"["a","b\"c","\u00e9\ud83d\ude00","\n"]"#) == ["a", "b\"c", "é😀", "\n"])
        #expect(JSONStringArray.parse("[]") == [])
        #expect(JSONStringArray.parse(#" [ "x" , "y" ] "#) == ["x", "y"])
        #expect(JSONStringArray.parse(#"["a",]"#) == nil)
        #expect(JSONStringArray.parse(#"["a"] x"#) == nil)
        #expect(JSONStringArray.parse(#"[1]"#) == nil)
        #expect(JSONStringArray.parse(#"["\ud83d"]"#) == nil)
    }
}
