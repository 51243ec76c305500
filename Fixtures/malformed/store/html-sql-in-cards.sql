UPDATE Card SET front = '<img src=x onerror=alert(1)>', back = '''); DROP TABLE Card; --' WHERE pk = 1;
