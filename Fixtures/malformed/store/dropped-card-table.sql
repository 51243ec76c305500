DROP TRIGGER Card_search_insert;
DROP TRIGGER Card_search_update;
DROP TRIGGER Card_search_delete;
DROP TABLE Card_tags;
DROP TABLE Card_media;
DROP TABLE Review;
DROP TABLE Card;
