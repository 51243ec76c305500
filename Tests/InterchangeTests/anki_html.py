#!/usr/bin/env python3
"""Renders notes with current Anki for the HTML export's test (one process per test run).

Builds a temporary collection with the stock note types (Image Occlusion included) and a
custom 4-field, 3-template type with CSS referring to a media file, adds the notes below in
nested decks, flags some cards, and prints one JSON object: every note type used (kind,
fields, templates, CSS) and every note (fields, tags, and per card: id, ordinal, deck, flag,
question and answer text as Anki renders them, with Anki's [anki:play:…] markers put back as
the [sound:…] tags they stand for, and the CSS).
"""

import json
import os
import re
import sys
import tempfile

from anki.collection import Collection
from anki.sound import SoundOrVideoTag

CUSTOM_FIELDS = ["Word", "Meaning", "Reading", "Example"]
CUSTOM_TEMPLATES = [
    ("Recognition", "<div class=jp>{{Word}}</div>{{#Reading}}<br>{{kana:Reading}}{{/Reading}}",
     "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{furigana:Reading}}<div>{{Deck}} / {{Subdeck}} / {{Card}} / {{Tags}} / {{CardFlag}}</div>"),
    ("Production", "{{#Meaning}}{{text:Meaning}}<br>{{type:Word}}{{/Meaning}}", "{{FrontSide}}<hr id=answer>{{Word}}"),
    ("Example", "{{#Example}}{{hint:Example}}{{/Example}}", "{{FrontSide}}<hr id=answer>{{Example}} {{Word}}"),
]
CUSTOM_CSS = ".card { font-family: serif; background: url('_paper.png'); }\n.jp { font-size: 2em; }"

# (note type, fields, tags, deck, flag of the first card)
NOTES = [
    ("Basic", ["chat", "cat <img src=\"cat.png\">"], ["animals"], "Default", 0),
    ("Basic", ["<b>le</b> chien&nbsp;", "the dog [sound:chien.mp3]"], [], "Languages::French", 2),
    ("Basic", ["a & b &amp; c &lt;3", "<script>alert(1)</script>x"], [], "Default", 0),
    ("Basic (and reversed card)", ["maison", "house"], ["fr"], "Languages::French::Nouns", 1),
    ("Basic (optional reversed card)", ["un", "one", "y"], [], "Default", 0),
    ("Basic (type in the answer)", ["capital of France", "Paris"], [], "Default", 0),
    ("Cloze", ["{{c1::Paris}} is the capital of {{c2::France::country}} <img src='cat.png'>", "extra [sound:chien.mp3]"], ["geo"], "Geography", 4),
    ("Cloze", ["{{c1::outer {{c2::inner}} text}} and {{c1,3::shared}}", ""], [], "Default", 0),
    ("Image Occlusion", [
        "{{c1::image-occlusion:rect:left=.2:top=.3:width=.1:height=.1:oi=1}}"
        "{{c2::image-occlusion:ellipse:left=.5:top=.5:width=.2:height=.1:rx=0:oi=1}}",
        "<img src=\"cat.png\">", "Head", "", ""], ["anatomy"], "Medicine::Anatomy", 0),
    ("Vocab", ["日本", "Japan", "日本[にほん]", "{{c1::x}} 日本に行きます"], ["jp::n5"], "Languages::Japanese", 3),
    ("Vocab", ["猫", "", "", ""], [], "Default", 0),
    ("Vocab", ["犬", "dog", "", "犬が好き"], [], "Default", 0),
]


def add_custom_type(col):
    mm = col.models
    m = mm.new("Vocab")
    for name in CUSTOM_FIELDS:
        mm.add_field(m, mm.new_field(name))
    for name, qfmt, afmt in CUSTOM_TEMPLATES:
        t = mm.new_template(name)
        t["qfmt"] = qfmt
        t["afmt"] = afmt
        mm.add_template(m, t)
    m["css"] = CUSTOM_CSS
    mm.add(m)


def with_sound_tags(text, tags, side):
    """Anki's [anki:play:q:N] markers back to the [sound:name] tags they replaced."""
    def replace(match):
        tag = tags[int(match.group(1))]
        if isinstance(tag, SoundOrVideoTag):
            return "[sound:%s]" % tag.filename
        return match.group(0)
    return re.sub(r"\[anki:play:%s:(\d+)\]" % side, replace, text)


def main():
    result = sys.stdout
    sys.stdout = sys.stderr  # Anki prints deprecation notes on stdout: keep stdout for the JSON
    with tempfile.TemporaryDirectory() as tmp:
        col = Collection(os.path.join(tmp, "collection.anki2"))
        try:
            add_custom_type(col)
            out = {"notetypes": {}, "notes": []}
            for type_name, fields, tags, deck, flag in NOTES:
                model = col.models.by_name(type_name)
                if type_name not in out["notetypes"]:
                    out["notetypes"][type_name] = {
                        "kind": model["type"],
                        "fields": [f["name"] for f in model["flds"]],
                        "templates": [{"name": t["name"], "qfmt": t["qfmt"], "afmt": t["afmt"]} for t in model["tmpls"]],
                        "css": model["css"],
                    }
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
                        "id": card.id,
                        "ord": card.ord,
                        "deck": col.decks.name(card.did),
                        "flag": card.user_flag(),
                        "question": with_sound_tags(output.question_text, output.question_av_tags, "q"),
                        "answer": with_sound_tags(output.answer_text, output.answer_av_tags, "a"),
                        "css": output.css,
                    })
                note.load()
                out["notes"].append({"notetype": type_name, "fields": list(note.fields), "tags": list(note.tags), "cards": cards})
            json.dump(out, result, ensure_ascii=False)
        finally:
            col.close()


if __name__ == "__main__":
    main()
