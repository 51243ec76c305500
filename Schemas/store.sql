-- The format version 2 store of a .sampledeck package (docs/FORMAT.md).
-- Generated from the models (DeckSchemaV2) and DeckStoreV2; a test checks that this file
-- and a new deck's sqlite_master agree. Regenerate: SAMPLEDECK_WRITE_STORE_SQL=1 swift test --filter StoreSQLTests
PRAGMA page_size = 16384;
PRAGMA user_version = 2;
PRAGMA foreign_keys = ON;
CREATE TABLE "Card" ("pk" INTEGER PRIMARY KEY, "ordinal" INTEGER NOT NULL, "type" INTEGER NOT NULL, "queue" INTEGER NOT NULL, "due" INTEGER NOT NULL, "interval" INTEGER NOT NULL, "easeFactor" INTEGER NOT NULL, "repetitions" INTEGER NOT NULL, "lapses" INTEGER NOT NULL, "remainingSteps" INTEGER NOT NULL, "originalDue" INTEGER NOT NULL, "flag" INTEGER NOT NULL, "stability" REAL, "difficulty" REAL, "desiredRetention" REAL, "decay" REAL, "lastReview" INTEGER, "originalPosition" INTEGER, "customData" TEXT NOT NULL, "created" REAL NOT NULL, "modified" REAL NOT NULL, "ankiID" INTEGER, "ankiOptions" TEXT NOT NULL, "note" INTEGER REFERENCES "Note"("pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, "deck" INTEGER REFERENCES "Deck"("pk") DEFERRABLE INITIALLY DEFERRED, "originalDeck" INTEGER REFERENCES "Deck"("pk") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX "Card_originalDeck" ON "Card"("originalDeck");
CREATE INDEX "Card_deck_queue_due" ON "Card"("deck", "queue", "due");
CREATE UNIQUE INDEX "Card_note_ordinal" ON "Card"("note", "ordinal");
CREATE TABLE "CardTemplate" ("pk" INTEGER PRIMARY KEY, "ordinal" INTEGER NOT NULL, "name" TEXT NOT NULL, "questionFormat" TEXT NOT NULL, "answerFormat" TEXT NOT NULL, "browserQuestionFormat" TEXT NOT NULL, "browserAnswerFormat" TEXT NOT NULL, "browserFont" TEXT NOT NULL, "browserFontSize" INTEGER NOT NULL, "modified" REAL NOT NULL, "ankiID" INTEGER, "ankiOptions" TEXT NOT NULL, "noteType" INTEGER REFERENCES "NoteType"("pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, "targetDeck" INTEGER REFERENCES "Deck"("pk") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX "CardTemplate_noteType" ON "CardTemplate"("noteType");
CREATE INDEX "CardTemplate_targetDeck" ON "CardTemplate"("targetDeck");
CREATE TABLE "Deck" ("pk" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "kind" INTEGER NOT NULL, "deckDescription" TEXT NOT NULL, "markdownDescription" INTEGER NOT NULL, "collapsed" INTEGER NOT NULL, "filterTerms" TEXT NOT NULL, "reschedules" INTEGER NOT NULL, "modified" REAL NOT NULL, "ankiID" INTEGER, "ankiOptions" TEXT NOT NULL, "preset" INTEGER REFERENCES "Preset"("pk") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED, UNIQUE("name"));
CREATE INDEX "Deck_preset" ON "Deck"("preset");
CREATE TABLE "DeckInfo" ("pk" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "deckDescription" TEXT NOT NULL, "dayZero" INTEGER NOT NULL, "dayStartsAt" INTEGER NOT NULL, "ankiConfig" TEXT NOT NULL);
CREATE TABLE "MediaFile" ("pk" INTEGER PRIMARY KEY, "fileName" TEXT NOT NULL, "sha256" TEXT NOT NULL, "sha1" TEXT NOT NULL, "mime" TEXT NOT NULL, "size" INTEGER NOT NULL, UNIQUE("fileName"));
CREATE INDEX "MediaFile_sha256" ON "MediaFile"("sha256");
CREATE TABLE "MediaName" ("pk" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "file" INTEGER REFERENCES "MediaFile"("pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, UNIQUE("name"));
CREATE INDEX "MediaName_file" ON "MediaName"("file");
CREATE TABLE "Note" ("pk" INTEGER PRIMARY KEY, "guid" TEXT NOT NULL, "fields" TEXT NOT NULL, "sortText" TEXT NOT NULL, "created" REAL NOT NULL, "modified" REAL NOT NULL, "ankiID" INTEGER, "noteType" INTEGER REFERENCES "NoteType"("pk") DEFERRABLE INITIALLY DEFERRED, UNIQUE("guid"));
CREATE INDEX "Note_noteType" ON "Note"("noteType");
CREATE TABLE "NoteField" ("pk" INTEGER PRIMARY KEY, "ordinal" INTEGER NOT NULL, "name" TEXT NOT NULL, "font" TEXT NOT NULL, "fontSize" INTEGER NOT NULL, "rightToLeft" INTEGER NOT NULL, "sticky" INTEGER NOT NULL, "plainText" INTEGER NOT NULL, "collapsed" INTEGER NOT NULL, "excludeFromSearch" INTEGER NOT NULL, "fieldDescription" TEXT NOT NULL, "ankiID" INTEGER, "ankiOptions" TEXT NOT NULL, "noteType" INTEGER REFERENCES "NoteType"("pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX "NoteField_noteType" ON "NoteField"("noteType");
CREATE TABLE "NoteType" ("pk" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "kind" INTEGER NOT NULL, "stockKind" INTEGER, "css" TEXT NOT NULL, "sortField" INTEGER NOT NULL, "latexPre" TEXT NOT NULL, "latexPost" TEXT NOT NULL, "latexSVG" INTEGER NOT NULL, "modified" REAL NOT NULL, "ankiID" INTEGER, "ankiOptions" TEXT NOT NULL);
CREATE INDEX "NoteType_name" ON "NoteType"("name");
CREATE TABLE "Preset" ("pk" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "newPerDay" INTEGER NOT NULL, "reviewsPerDay" INTEGER NOT NULL, "learningSteps" TEXT NOT NULL, "relearningSteps" TEXT NOT NULL, "maximumInterval" INTEGER NOT NULL, "usesFSRS" INTEGER NOT NULL, "fsrsParameters" TEXT NOT NULL, "desiredRetention" REAL NOT NULL, "startingEase" INTEGER NOT NULL, "graduatingInterval" INTEGER NOT NULL, "easyInterval" INTEGER NOT NULL, "easyBonus" REAL NOT NULL, "hardMultiplier" REAL NOT NULL, "intervalMultiplier" REAL NOT NULL, "lapseMultiplier" REAL NOT NULL, "minimumLapseInterval" INTEGER NOT NULL, "leechThreshold" INTEGER NOT NULL, "buryNewSiblings" INTEGER NOT NULL, "buryReviewSiblings" INTEGER NOT NULL, "buryInterdaySiblings" INTEGER NOT NULL, "modified" REAL NOT NULL, "ankiID" INTEGER, "ankiOptions" TEXT NOT NULL);
CREATE TABLE "Review" ("pk" INTEGER PRIMARY KEY, "time" INTEGER NOT NULL, "rating" INTEGER NOT NULL, "interval" INTEGER NOT NULL, "lastInterval" INTEGER NOT NULL, "easeFactor" INTEGER NOT NULL, "duration" INTEGER NOT NULL, "kind" INTEGER NOT NULL, "ankiID" INTEGER, "card" INTEGER REFERENCES "Card"("pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX "Review_card" ON "Review"("card");
CREATE INDEX "Review_time" ON "Review"("time");
CREATE TABLE "Tag" ("pk" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "collapsed" INTEGER NOT NULL, UNIQUE("name"));
CREATE TABLE "Note_media" ("source" INTEGER NOT NULL REFERENCES "Note"("pk") ON DELETE CASCADE, "target" INTEGER NOT NULL REFERENCES "MediaName"("pk") ON DELETE CASCADE, PRIMARY KEY("source", "target")) WITHOUT ROWID;
CREATE INDEX "Note_media_target" ON "Note_media"("target");
CREATE TABLE "Note_tags" ("source" INTEGER NOT NULL REFERENCES "Note"("pk") ON DELETE CASCADE, "target" INTEGER NOT NULL REFERENCES "Tag"("pk") ON DELETE CASCADE, PRIMARY KEY("source", "target")) WITHOUT ROWID;
CREATE INDEX "Note_tags_target" ON "Note_tags"("target");
CREATE TABLE "persistence_metadata" ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL);
CREATE VIRTUAL TABLE "NoteSearch" USING fts5(fields, tags, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE "NoteSearchPending" ("indexedThrough" INTEGER NOT NULL);
CREATE TRIGGER "Note_search_delete" AFTER DELETE ON "Note" BEGIN
  DELETE FROM "NoteSearch" WHERE rowid = old."pk";
END;
CREATE INDEX "Note_ankiID_set" ON "Note"("ankiID") WHERE "ankiID" IS NOT NULL;
CREATE INDEX "Card_ankiID_set" ON "Card"("ankiID") WHERE "ankiID" IS NOT NULL;
INSERT INTO "persistence_metadata" ("key", "value") VALUES ('schemaVersion', '2.1.0');
INSERT INTO "DeckInfo" ("pk", "title", "deckDescription", "dayZero", "dayStartsAt", "ankiConfig") VALUES (1, 'Untitled', '', 0, 4, '{}');
