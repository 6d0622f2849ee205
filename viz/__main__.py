"""`python -m viz`: the same as the `rxviz` command."""

from .cli import main

raise SystemExit(main())
