UPDATE Card SET front = CAST(x'c328ff' AS TEXT) WHERE pk = 1;
