"""Exercises: the learner writes a driver with the API (models/driver/), rxviz runs and grades it.

They ship with rxviz (never from a lesson file): a catalog (catalog.py), a
skeleton and a reference driver each, the child process that runs a driver
under limits (child.py) and the grader that reads what it found (grade.py).
"""
