UPDATE Card SET ease = 1e308 WHERE pk = 1;
