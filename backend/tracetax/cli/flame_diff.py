"""`tracetax flame-diff`: where the added cost went, from a running TraceTax's API
(GET /api/v1/experiments/{id}/stacks/{configuration}/diff).

By default the functions whose own CPU per request changed most, largest first; `--folded`
prints the folded diff (`stack count_baseline count_candidate`) for flamegraph.pl's
difffolded input. Exit codes: 0 printed, 2 error (bad input, TraceTax unreachable, no stacks).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from tracetax.cli.api import ApiAnswerError, answer, api_client, refusal

EXIT_ERROR = 2
UNITS = {"us_per_request": "µs per request", "share_pct": "points of share"}


def _error(message: str) -> typer.Exit:
    typer.echo(f"tracetax flame-diff: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def change_lines(diff: dict[str, Any], top: int) -> list[str]:
    """The sides compared, then the `top` functions whose own cost changed most."""
    unit = UNITS.get(diff["unit"], diff["unit"])
    sides = [
        f"{side['configuration']} of {side['experiment_id'][:8]} ({side['samples']} samples)"
        for side in (diff["candidate"], diff["baseline"])
    ]
    lines = [f"{sides[0]} against {sides[1]}, in {unit}: {diff['unit_note']}"]
    for change in diff["changes"][:top]:
        lines.append(
            f"  {change['delta']:+10.2f}  {change['baseline']:10.2f} -> {change['candidate']:10.2f}  {change['name']}"
        )
    if not diff["changes"]:
        lines.append("  no frame changed")
    return lines


def register(app: typer.Typer) -> None:
    @app.command("flame-diff")
    def flame_diff(
        experiment: Annotated[str, typer.Argument(help="The experiment (a check's: its experiment_id).")],
        configuration: Annotated[str, typer.Option(help="The configuration to explain.")] = "candidate",
        against: Annotated[
            str | None,
            typer.Option(help="Compare with this configuration (default: the baseline, or the same name elsewhere)."),
        ] = None,
        against_experiment: Annotated[
            str | None, typer.Option(help="Compare with a configuration of this experiment (an earlier check's).")
        ] = None,
        folded: Annotated[bool, typer.Option(help="Print the folded diff for flamegraph.pl instead.")] = False,
        out: Annotated[Path | None, typer.Option(help="Write to this file instead of standard output.")] = None,
        top: Annotated[int, typer.Option(min=1, help="How many changed functions to list.")] = 20,
        api: Annotated[str, typer.Option(envvar="TRACETAX_URL", help="TraceTax base URL.")] = "http://127.0.0.1:8000",
    ) -> None:
        """Where the added cost went: each function's CPU per request against the baseline (or an earlier check)."""
        params = {"format": "folded" if folded else "tree"}
        params.update({k: v for k, v in (("against", against), ("against_experiment", against_experiment)) if v})
        path = f"/api/v1/experiments/{experiment}/stacks/{configuration}/diff"
        with api_client(api, timeout=60) as http:
            try:
                response = http.get(path, params=params)
                if folded:
                    if response.status_code != 200:
                        raise ApiAnswerError(response.status_code, refusal(response))
                    text = response.text
                else:
                    text = "\n".join(change_lines(answer(response), top)) + "\n"
            except httpx.HTTPError as error:
                raise _error(f"cannot reach TraceTax at {api}: {error}") from None
            except ApiAnswerError as error:
                raise _error(str(error)) from None
        if out is None:
            typer.echo(text, nl=False)
        else:
            out.write_text(text)
