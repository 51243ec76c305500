DELETE FROM CardSearch;
