"""The commands that start an experiment spec saved as a file: `tracetax run` on the file (the
experiment in the CLI's own process) and the API's POST of it, each word quoted for a POSIX
shell. The new experiment form shows what this builds (`POST /api/v1/experiments/commands`), so
the UI keeps no copy of the CLI or of shell quoting."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tracetax.app.check_commands import shell_quote

SPEC_FILE = "spec.json"


class SpecCommands(BaseModel):
    """A spec saved as `file`, and the commands that start it."""

    file: str = Field(description="The file the commands read the spec from.")
    cli: str = Field(description="`tracetax run` on the file (run from backend/ as `uv run tracetax run ...`).")
    curl: str = Field(description="The API's POST /api/v1/experiments with the file as its body.")


def spec_commands(base_url: str, file: str = SPEC_FILE) -> SpecCommands:
    """The commands that start the spec saved as `file`, the curl one against `base_url`."""
    experiments = f"{base_url.rstrip('/')}/api/v1/experiments"
    return SpecCommands(
        file=file,
        cli=f"tracetax run {shell_quote(file)}",
        curl="\n".join(
            [
                f"curl -s -XPOST {shell_quote(experiments)} \\",
                f"  -H 'content-type: application/json' -d @{shell_quote(file)}",
            ]
        ),
    )
