DROP INDEX Card_ankiID_set;
CREATE INDEX "Card_ankiID_set" ON "Card"(abs("ankiID")) WHERE "ankiID" IS NOT NULL;
