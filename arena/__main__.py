"""`python -m arena` runs the command line."""

from arena.cli import main

main()
