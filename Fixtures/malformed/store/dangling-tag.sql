PRAGMA foreign_keys=OFF;
INSERT INTO Card_tags(source, target) VALUES (1, 999);
