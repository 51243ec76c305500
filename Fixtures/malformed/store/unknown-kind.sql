UPDATE Card SET kind = 'hologram', entity = 'Hologram' WHERE pk = 1;
