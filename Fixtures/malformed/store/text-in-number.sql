UPDATE Card SET created = 'yesterday', interval = 'long' WHERE pk = 1;
