"""The app's screens, one a module: home (lessons), player (a lesson), help, the
number prompt (jump, fast-forward) and the too-small notice. Compare is a mode
of the player (`c`), not a screen: it keeps the narration and stepping."""
