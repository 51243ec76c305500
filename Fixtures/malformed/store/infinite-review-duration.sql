INSERT INTO Review (time, rating, interval, lastInterval, easeFactor, duration, kind, card) VALUES (0, 3, 1, 0, 0, 9e999, 1, 1);
