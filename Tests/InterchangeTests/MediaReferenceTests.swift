import Testing
@testable import Interchange

/// ``MediaNames/references(in:)``: the media names a field refers to, found by a byte scan.
@Suite struct MediaReferenceTests {
    @Test(arguments: [
        ("plain text without media", []),
        ("a = b [not a sound]", []),
        ("<IMG SRC=\"Upper.PNG\"><img Src='mixed.jpg'>", ["Upper.PNG", "mixed.jpg"]),
        ("<img src=bare.gif><img src=tab.gif\tx><img src=nl.gif\ny><img src=end.gif", ["bare.gif", "tab.gif", "nl.gif", "end.gif"]),
        ("<img src=\"café ünï.png\"> [sound:日本語.mp3]", ["café ünï.png", "日本語.mp3"]),
        ("[sound:a.mp3] <img src=\"b.png\"> [sound:a.mp3] <img src='b.png'>", ["b.png", "a.mp3"]),
        ("<img src=\" spaced.png \"> <img src=\"pct%20name.png\">", ["spaced.png", "pct name.png"]),
        ("<img src=\"data:image/png;base64,xx\"> <img src=\"https://x/y.png\"> <img src=\"/abs.png\"> <img src=\"\">", []),
        ("<img src=\"c:drive.png\">", ["c:drive.png"]),
        ("<img src=\"unterminated.png> [sound:ok.mp3]", ["ok.mp3"]),
        ("[sound:unterminated.mp3 <img src=x.png>", ["x.png"]),
        ("src=", []),
    ] as [(String, [String])])
    func findsTheNamesAFieldRefersTo(_ field: String, _ expected: [String]) {
        #expect(MediaNames.references(in: field) == expected)
    }
}
