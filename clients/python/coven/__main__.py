"""`python -m coven …`: the `coven` command."""

from coven.cli import main

main()
