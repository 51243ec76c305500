PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '"flag" INTEGER NOT NULL', '"flag" TEXT NOT NULL') WHERE name = 'Card';
