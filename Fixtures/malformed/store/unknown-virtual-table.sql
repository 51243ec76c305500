PRAGMA writable_schema = ON;
INSERT INTO sqlite_schema VALUES ('table', 'Evil', 'Evil', 0, 'CREATE VIRTUAL TABLE Evil USING nosuchmodule(x)');
