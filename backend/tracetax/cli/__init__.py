"""The `tracetax` command line: `main.py` is the Typer app, one module per command group."""
