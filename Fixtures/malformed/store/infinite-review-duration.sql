INSERT INTO Review (date, ease, interval, duration, card) VALUES (0, 3, 1, 9e999, 1);
