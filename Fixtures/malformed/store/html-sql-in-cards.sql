UPDATE Note SET fields = json_array('<img src=x onerror=alert(1)>', '''); DROP TABLE Card; --') WHERE pk = 1;
