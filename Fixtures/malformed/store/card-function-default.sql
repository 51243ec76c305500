PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '"customData" TEXT NOT NULL', '"customData" TEXT NOT NULL DEFAULT (hex(randomblob(100000000)))') WHERE name = 'Card';
