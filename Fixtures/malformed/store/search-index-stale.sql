DELETE FROM NoteSearch;
