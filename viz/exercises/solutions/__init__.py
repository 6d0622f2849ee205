"""Reference drivers of the exercises: each is the driver the lesson's variant runs, written with the API."""
