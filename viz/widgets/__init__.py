"""Widgets of the player, one concept a module: narration, question, view deck,
compare's difference line, status line and colour legend. The model views
themselves live in viz.views."""
