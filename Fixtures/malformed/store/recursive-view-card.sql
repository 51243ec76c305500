DROP TRIGGER Card_search_insert;
DROP TRIGGER Card_search_update;
DROP TRIGGER Card_search_delete;
ALTER TABLE Card RENAME TO CardRows;
CREATE VIEW Card AS WITH RECURSIVE r(pk, entity, kind, front, back, created, modified, due, interval, ease, repetitions, lapses, ankiGUID, deckPath) AS (SELECT * FROM CardRows UNION ALL SELECT pk + 1, entity, kind, front, back, created, modified, due, interval, ease, repetitions, lapses, ankiGUID, deckPath FROM r) SELECT * FROM r;
