DROP TRIGGER Note_search_delete;
ALTER TABLE Note RENAME TO NoteRows;
CREATE VIEW Note AS WITH RECURSIVE r(pk, guid, fields, sortText, created, modified, ankiID, noteType) AS (SELECT * FROM NoteRows UNION ALL SELECT pk + 1, guid, fields, sortText, created, modified, ankiID, noteType FROM r) SELECT * FROM r;
