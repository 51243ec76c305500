ALTER TABLE Card ADD COLUMN evil AS (length(zeroblob(100000000)));
