"""Word tables the rules read (their JSON data in ../data/) and the CLDR place gazetteer."""
