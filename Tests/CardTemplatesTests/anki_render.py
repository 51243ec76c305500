#!/usr/bin/env python3
"""Renders notes with current Anki for CardTemplatesTests (one process per test run).

Builds a temporary collection holding the stock note types and a custom 5-field, 3-template
type, adds the notes below, and prints one JSON object: every note type (kind, fields,
templates, CSS) and every note (fields, tags, and per card: ordinal, deck, flag, id,
card.question(), card.answer(), card.css()).
"""

import json
import os
import random
import sys
import tempfile

from anki.collection import Collection
from anki.template import TemplateRenderContext

LONG_EXAMPLE = "".join("example sentence %d, with some text; " % i for i in range(140))

CUSTOM_FIELDS = ["Word", "Meaning", "Reading", "Example", "Notes"]
CUSTOM_TEMPLATES = [
    ("Recognition",
     "{{Word}}{{#Reading}} ({{kana:Reading}}){{/Reading}}",
     "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{hint:Example}}<br>{{text:Notes}}"
     "<div>{{Deck}}|{{Subdeck}}|{{Card}}|{{Type}}|{{CardFlag}}|{{Tags}}|{{CardID}}</div>"
     "<div>{{kanji:Reading}}|{{furigana:Reading}}</div>"),
    ("Production",
     "{{#Meaning}}{{text:Meaning}}{{^Reading}} (no reading){{/Reading}}<br>{{type:Word}}{{/Meaning}}",
     "{{FrontSide}}<hr id=answer>{{Word}}{{#Reading}} {{furigana:Reading}}{{/Reading}}"),
    ("Example",
     "{{#Example}}{{#Word}}{{Example}}<br>{{unknownfilter:text:Word}}<br>{{text:unknownfilter:Word}}{{/Word}}{{/Example}}{{Tags}}",
     "{{FrontSide}}<hr id=answer>{{hint:text:Notes}}<!-- comment {{Word}} -->{{^Notes}}no notes{{/Notes}} {{ Meaning }}"),
]
CUSTOM_CSS = ".card { font-family: serif; background: url('_paper.png'); }\n.hint { color: gray; }"

# More custom types: a cloze type using every cloze filter and cloze sections, a standard type
# with the alternate delimiters, and one whose fields shadow special fields.
EXTRA_TYPES = [
    ("ClozeFilters", True, ["Text", "Extra"], [(
        "Cloze",
        "{{cloze:Text}}<br>{{cloze-only:Text}}<br>{{type:cloze:Text}}{{#c2}} second{{/c2}}{{^c1}} not first{{/c1}}",
        "{{cloze:Text}}<br>{{cloze-only:Text}}<br>{{text:cloze:Text}}<br>{{hint:Extra}}{{type:cloze:Text}} {{Card}}",
    )], ".cloze { color: red }"),
    ("AltDelimiters", False, ["Front", "Back"], [(
        "Alt",
        "  {{=<% %>=}}<%Front%> {{Front}} <% #Back %>has back<%/Back%>",
        "{{=<% %>=}}<%FrontSide%><hr id=answer><%text:Back%>",
    )], ""),
    ("Shadow", False, ["Tags", "Deck", "Card"], [(
        "Shadowing",
        "{{Tags}}|{{Deck}}|{{Card}}|{{Subdeck}}|{{Type}}",
        "{{FrontSide}}<hr id=answer>{{kanji:Card}}",
    )], ""),
]

# (note type, fields, tags, deck, flag of the first card)
NOTES = [
    ("Basic", ["chat", "cat"], [], "Default", 0),
    ("Basic", ["<b>le</b> chien&nbsp;", "the dog <img src=\"dog.png\">"], ["animals"], "Languages::French", 1),
    ("Basic", ["", "back only"], [], "Default", 0),
    ("Basic", ["<div><br></div>", "x"], [], "Default", 0),
    ("Basic", ["[sound:bonjour.mp3] bonjour", "hello [sound:hello.mp3]"], [], "Default", 0),
    ("Basic", ["Tom &amp; Jerry &lt;3", "a & b"], [], "Default", 7),
    ("Basic (and reversed card)", ["house", "maison"], ["fr"], "Languages::French::Nouns", 0),
    ("Basic (and reversed card)", ["only front", ""], [], "Default", 0),
    ("Basic (optional reversed card)", ["a", "b", ""], [], "Default", 0),
    ("Basic (optional reversed card)", ["a", "b", "y"], [], "Default", 2),
    ("Basic (optional reversed card)", ["", "b", "y"], [], "Default", 0),
    ("Basic (type in the answer)", ["capital of France", "Paris"], [], "Default", 0),
    ("Cloze", ["{{c1::Paris}} is the capital of {{c2::France::country}}", "extra"], ["geo"], "Geography", 0),
    ("Cloze", ["{{c1::outer {{c2::inner}} text}} after", ""], [], "Default", 0),
    ("Cloze", ["{{c1,2::shared}} and {{c1::first}} vs {{c3::third}}", "<i>more</i>"], [], "Default", 4),
    ("Cloze", ["plain text without deletions", "x"], [], "Default", 0),
    ("Cloze", ["{{c0::zero}} {{c12::twelve}}", ""], [], "Default", 0),
    ("Cloze", ["\\(a + {{c1::<b>b</b>}}\\) and \\[{{c2::<i>c</i>}}\\]", ""], [], "Default", 0),
    ("Cloze", ["{{c1::l'été \"chaud\" & <i>sec</i>::saison}} [sound:été.mp3] <img src='sun.png'>", ""], [], "Default", 0),
    ("Cloze", ["{{c1::a {{c1::b}} c}} {{c2::unclosed", ""], [], "Default", 0),
    ("Cloze", ["{{c2::x::h1::h2}} }} {{c1::}} {{c3::y}}", "{{c4::in back extra}}"], [], "Default", 0),
    ("Image Occlusion", [
        "{{c1::image-occlusion:rect:left=.2:top=.3:width=.1:height=.1:oi=1}}"
        "{{c2::image-occlusion:ellipse:left=.5:top=.5:width=.2:height=.1:rx=0:oi=1}}"
        "{{c3::image-occlusion:polygon:points=0,0 10,10 20,0:oi=1}}"
        "{{c1,3::image-occlusion:text:left=.1:top=.1:text=a\\:b \"q\":scale=1:fs=.05}}",
        "<img src=\"brain.png\">", "Brain", "", ""], ["anatomy"], "Medicine::Anatomy", 0),
    ("Vocab5", ["日本", "Japan", "日本[にほん]", "{{c1::x}} 日本に行きます", "notes &amp; more"], ["vocab", "jp::n5"], "Languages::Japanese::Vocab", 3),
    ("Vocab5", ["猫", "", "", "", ""], [], "Default", 0),
    ("Vocab5", ["", "cat", "", "", ""], ["animals"], "Default", 0),
    ("Vocab5", ["犬", "", "", "犬が好き", ""], [], "Default", 0),
    ("Vocab5", ["", "", "", "", "<br>"], [], "Default", 0),
    ("Vocab5", ["長い", "long", "", LONG_EXAMPLE, "<i>" + LONG_EXAMPLE + "</i>"], [], "Default", 0),
    ("Vocab5", ["<div> </div>", "", "日本語[にほんご] 漢字[かんじ]", "", ""], [], "Default", 5),
    ("Vocab5", ["a & b &amp; c", "x &lt; y", "&nbsp;語[ご]&nbsp;本[ほん] [sound:a.mp3] x[sound:b.mp3]", "", "<b>bold</b> &bogus; text"], ["t"], "Default", 0),
    ("ClozeFilters", ["{{c1::one}} {{c2::two::hint}} {{c1::one}} {{c1,2::both}}", "extra <b>html</b>"], [], "Default", 0),
    ("ClozeFilters", ["{{c1::same}} and {{c1::same}}", ""], [], "Default", 0),
    ("ClozeFilters", ["{{c2::only two}}", ""], [], "Default", 0),
    ("AltDelimiters", ["front", "back <b>b</b>"], [], "Default", 0),
    ("AltDelimiters", ["front", ""], [], "Default", 0),
    ("Shadow", ["my tags", "my deck", "x[y]"], ["real"], "Real::Deck", 6),
    ("Shadow", ["", "", ""], [], "Real::Deck", 0),
]


# Templates with problems, rendered for a Basic note through the card layout path
# (Anki refuses to save note types whose templates name missing fields).
BROKEN_TEMPLATES = [
    ("{{Front}}{{Missing}}", "x"),
    ("{{text:hint:Missing}}", ""),
    ("{{#Front}}x", "y"),
    ("{{/Front}}", ""),
    ("{{#Front}}{{/Back}}", ""),
    ("{{#Nope}}{{/Nope}}", ""),
    ("{{Front}}", "{{^Nope}}{{/Nope}}"),
    ("{{Front}}", "{{#Back}}"),
    ("{{Front}}<!-- {{Missing}} -->", "{{FrontSide}} {{}}"),
]


def render_broken(col):
    model = col.models.by_name("Basic")
    note = col.new_note(model)
    note["Front"] = "f"
    note["Back"] = "b"
    col.add_note(note, col.decks.id("Default"))
    card = note.cards()[0]
    out = []
    for qfmt, afmt in BROKEN_TEMPLATES:
        template = {"name": "Broken", "ord": 0, "qfmt": qfmt, "afmt": afmt, "bqfmt": "", "bafmt": "", "did": None}
        rendered = TemplateRenderContext.from_card_layout(note, card, model, template, False).render()
        out.append({"qfmt": qfmt, "afmt": afmt, "fields": list(note.fields),
                    "question": rendered.question_text, "answer": rendered.answer_text})
    return out


# Seeded random cases: field values and templates built from pieces that exercise the parser,
# the filters and cloze handling; rendered through Anki's card-layout path.
FIELD_PIECES = [
    "", " ", "<br>", "<div> </div>", "x", "<b>y</b>", "&amp;", "&bogus;", "a & b", "&nbsp;",
    "{{c1::one}}", "{{c2::two::h}}", "{{c1,2::both}}", "{{c1::out {{c2::in}}}}", "{{c3::unclosed",
    "{{c0::zero}}", "}}", "::", "日本[にほん]", " 語[ご]", "[sound:s.mp3]", "<img src=\"i.png\">",
    "\\(<b>m</b>\\)", "{{c1::image-occlusion:rect:left=.1:top=.2:width=.3:height=.4:oi=1}}",
    "l'été \"é\" <i>ü</i>", "\n", "<!-- c -->", "{{c1::a::b::c}}", "{{c1::x {{c2::y::h2}} z::h1}}",
    "{{c11::eleven}}", "a[b]c[d]", "x[]", "[[y]]", "<b>漢字</b>[かんじ]", "&#233;&#x41;", "<BR/>",
    "{{c2::<img src='o.png'>}}", "{{c1::\\(x^2\\)}}", "&lt;b&gt;", "\t",
]
TEMPLATE_PIECES = [
    "{{F1}}", "{{F2}}", "{{F3}}", "{{#F1}}", "{{/F1}}", "{{#F2}}", "{{/F2}}", "{{^F1}}", "{{^F3}}",
    "{{/F3}}", "{{text:F1}}", "{{hint:F2}}", "{{cloze:F1}}", "{{cloze:F2}}", "{{cloze-only:F1}}",
    "{{type:F1}}", "{{type:cloze:F1}}", "{{kana:F3}}", "{{furigana:F3}}", "{{kanji:F2}}",
    "{{text:cloze:F1}}", "{{Tags}}", "{{Deck}}", "{{Subdeck}}", "{{Card}}", "{{Type}}", "{{CardFlag}}",
    "{{#c1}}", "{{/c1}}", "{{^c2}}", "{{/c2}}", "{{unknown:F1}}", "{{text:unknown:F2}}", "<!-- {{F1}} -->",
    " text ", "<br>", "{{FrontSide}}", "{{ F1 }}", "{{#Tags}}", "{{/Tags}}", "{{Missing}}", "{{",
    "}}", "{{text::F1}}", "{{filter:}}", "{{CardID}}", "{{hint:text:F1}}", "{{cloze-only:F3}}",
    "{{^F2}}", "{{#F3}}", "{{/F1}}", "{{kana:text:F3}}", "{{#c2}}", "{{tts en_US:F1}}",
]


def random_text(rng, pieces, most):
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, most)))


def render_random(col, rng, count):
    types = {}
    for name, kind in (("FuzzStandard", 0), ("FuzzCloze", 1)):
        mm = col.models
        m = mm.new(name)
        m["type"] = kind
        for field in ("F1", "F2", "F3"):
            mm.add_field(m, mm.new_field(field))
        t = mm.new_template("Card 1")
        t["qfmt"] = "{{cloze:F1}}" if kind else "{{F1}}"
        t["afmt"] = "{{cloze:F1}}" if kind else "{{F2}}"
        mm.add_template(m, t)
        mm.add(m)
        types[kind] = mm.by_name(name)
    out = []
    for _ in range(count):
        kind = rng.choice((0, 1))
        model = types[kind]
        note = col.new_note(model)
        for i in range(3):
            note.fields[i] = random_text(rng, FIELD_PIECES, 4)
        note.tags = rng.choice(([], ["t1"], ["a", "b::c"]))
        qfmt = random_text(rng, TEMPLATE_PIECES, 7)
        afmt = random_text(rng, TEMPLATE_PIECES, 5)
        ord_ = rng.choice((0, 0, 1, 2))
        template = {"name": "Fuzz", "ord": 0, "qfmt": qfmt, "afmt": afmt, "bqfmt": "", "bafmt": "", "did": None}
        rendered = note.ephemeral_card(ord_, custom_note_type=model, custom_template=template).render_output()
        out.append({"kind": kind, "qfmt": qfmt, "afmt": afmt, "fields": list(note.fields), "tags": list(note.tags),
                    "ord": ord_, "question": rendered.question_text, "answer": rendered.answer_text})
    return out


def generate_random(col, rng, count):
    """A standard type with random valid templates, and random notes added: Anki's ordinals."""
    def section_template():
        key = rng.choice(("F1", "F2", "F3", "Tags"))
        inner = rng.choice(("{{F1}}", "{{F2}}", "{{F3}}", "{{Tags}}", "text", "{{text:F2}}", ""))
        opening = rng.choice(("#", "^"))
        return "{{%s%s}}%s{{/%s}}" % (opening, key, inner, key)
    mm = col.models
    m = mm.new("FuzzGeneration")
    for field in ("F1", "F2", "F3"):
        mm.add_field(m, mm.new_field(field))
    seen = set()
    while len(seen) < 7:
        parts = [rng.choice((section_template(), "{{F1}}", "{{F2}}", "{{F3}}", "x", "{{Tags}}")) for _ in range(rng.randint(1, 3))]
        qfmt = "".join(parts)
        if "{{" not in qfmt or qfmt in seen:
            continue
        seen.add(qfmt)
        t = mm.new_template("T%d" % len(seen))
        t["qfmt"] = qfmt
        t["afmt"] = "{{FrontSide}}"
        mm.add_template(m, t)
    mm.add(m)
    model = mm.by_name("FuzzGeneration")
    notes = []
    for _ in range(count):
        note = col.new_note(model)
        for i in range(3):
            note.fields[i] = rng.choice(("", " ", "<br>", "x", "<div></div>", "&nbsp;", "y"))
        note.tags = rng.choice(([], ["t"]))
        col.add_note(note, col.decks.id("Default"))
        notes.append({"fields": list(note.fields), "tags": list(note.tags), "ords": sorted(c.ord for c in note.cards())})
    return {"templates": [{"name": t["name"], "qfmt": t["qfmt"], "afmt": t["afmt"]} for t in model["tmpls"]], "notes": notes}


def add_custom_type(col):
    mm = col.models
    m = mm.new("Vocab5")
    for name in CUSTOM_FIELDS:
        mm.add_field(m, mm.new_field(name))
    for name, qfmt, afmt in CUSTOM_TEMPLATES:
        t = mm.new_template(name)
        t["qfmt"] = qfmt
        t["afmt"] = afmt
        mm.add_template(m, t)
    m["css"] = CUSTOM_CSS
    mm.add(m)


def add_extra_types(col):
    mm = col.models
    for name, is_cloze, fields, templates, css in EXTRA_TYPES:
        m = mm.new(name)
        if is_cloze:
            m["type"] = 1
        for field in fields:
            mm.add_field(m, mm.new_field(field))
        for tname, qfmt, afmt in templates:
            t = mm.new_template(tname)
            t["qfmt"] = qfmt
            t["afmt"] = afmt
            mm.add_template(m, t)
        m["css"] = css
        mm.add(m)


def main():
    # Anki prints deprecation notes on stdout: keep stdout for the JSON alone
    result = sys.stdout
    sys.stdout = sys.stderr
    with tempfile.TemporaryDirectory() as tmp:
        col = Collection(os.path.join(tmp, "collection.anki2"))
        try:
            add_custom_type(col)
            add_extra_types(col)
            out = {"notetypes": {}, "notes": []}
            for m in col.models.all():
                out["notetypes"][m["name"]] = {
                    "kind": m["type"],
                    "fields": [f["name"] for f in m["flds"]],
                    "templates": [{"name": t["name"], "qfmt": t["qfmt"], "afmt": t["afmt"]} for t in m["tmpls"]],
                    "css": m["css"],
                }
            for type_name, fields, tags, deck, flag in NOTES:
                model = col.models.by_name(type_name)
                note = col.new_note(model)
                for i, value in enumerate(fields):
                    note.fields[i] = value
                note.tags = tags
                col.add_note(note, col.decks.id(deck))
                cards = []
                for index, card in enumerate(sorted(note.cards(), key=lambda c: c.ord)):
                    if index == 0 and flag:
                        col.set_user_flag_for_cards(flag, [card.id])
                        card.load()
                    output = card.render_output()
                    cards.append({
                        "ord": card.ord,
                        "deck": col.decks.name(card.did),
                        "flag": card.user_flag(),
                        "id": card.id,
                        "question": card.question(),
                        "answer": card.answer(),
                        "css": output.css,
                    })
                note.load()
                out["notes"].append({"notetype": type_name, "fields": list(note.fields), "tags": list(note.tags), "cards": cards})
            out["broken"] = render_broken(col)
            rng = random.Random(14)
            out["random"] = render_random(col, rng, 300)
            out["generation"] = generate_random(col, rng, 40)
            json.dump(out, result, ensure_ascii=False)
        finally:
            col.close()


if __name__ == "__main__":
    main()
