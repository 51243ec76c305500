UPDATE Card SET front = 42.5 WHERE pk = 1;
