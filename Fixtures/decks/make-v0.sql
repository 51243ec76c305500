-- The format version 0 store (SampleDeck's first, pre-release layout), written by hand.
-- Regenerate Fixtures/decks/v0/Vocabulary.sampledeck/Cards.sqlite with:
--   rm -f v0/Vocabulary.sampledeck/Cards.sqlite && sqlite3 v0/Vocabulary.sampledeck/Cards.sqlite < make-v0.sql
PRAGMA user_version = 0;
CREATE TABLE cards (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL DEFAULT 'basic',   -- basic | reversible | cloze
  question TEXT NOT NULL,
  answer TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '',        -- tag names separated by spaces
  created INTEGER NOT NULL               -- Unix seconds
);
INSERT INTO cards VALUES (1, 'basic', 'chat', 'cat', 'animals nouns', 1767225600);
INSERT INTO cards VALUES (2, 'reversible', 'Café', 'coffee', 'drinks', 1767312000);
INSERT INTO cards VALUES (5, 'cloze', 'Paris is the capital of {{c1::France}}', '', 'geo nouns', 1767398400);
INSERT INTO cards VALUES (7, 'basic', 'l''élève', 'the pupil', '', 1767484800);
