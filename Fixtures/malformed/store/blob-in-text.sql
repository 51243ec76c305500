UPDATE Note SET fields = x'00ff00ff' WHERE pk = 1;
