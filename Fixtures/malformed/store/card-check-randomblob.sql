PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '"flag" INTEGER NOT NULL', '"flag" INTEGER NOT NULL CHECK (length(randomblob(1000000000)) > 0)') WHERE name = 'Card';
