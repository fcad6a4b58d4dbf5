"""`python -m tracetax.cli`: the same commands as the `tracetax` console script."""

from tracetax.cli.main import main

main()
