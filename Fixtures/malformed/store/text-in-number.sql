UPDATE Note SET created = 'yesterday' WHERE pk = 1;
