UPDATE Card SET back = x'00ff00ff' WHERE pk = 1;
