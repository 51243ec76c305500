UPDATE Card SET created = 9e999 WHERE pk = 1;
