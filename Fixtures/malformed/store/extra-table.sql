CREATE TABLE Extra(x);
INSERT INTO Extra VALUES ('never read');
