PRAGMA foreign_keys=OFF;
INSERT INTO Note_tags(source, target) VALUES (1, 999);
