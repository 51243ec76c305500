UPDATE Note SET sortText = 42.5 WHERE pk = 1;
