UPDATE NoteType SET kind = 7;
