PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '"collapsed" INTEGER NOT NULL', '[collapsed]
    INTEGER   NOT NULL DEFAULT 0') WHERE name = 'Tag';
