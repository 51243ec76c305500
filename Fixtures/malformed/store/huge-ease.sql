UPDATE Card SET easeFactor = 1e308 WHERE pk = 1;
