UPDATE Note SET fields = '["' || CAST(x'c328ff' AS TEXT) || '", "x"]' WHERE pk = 1;
