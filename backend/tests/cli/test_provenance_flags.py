"""`tracetax check` and `tracetax run`'s provenance flags: each over what the CI's environment
gives and what a spec file says; the history gate's `BRANCH:N` sent as the request's
`against_history`; a bad value refused naming its flag."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
import yaml

from tracetax.cli.check import history_gate
from tracetax.cli.main import app
from tracetax.cli.provenance import ProvenanceFlags
from tracetax.cli.run import with_provenance
from tracetax.subjects.union import load_spec_file

GITHUB = {
    "GITHUB_ACTIONS": "true",
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "acme/shop",
    "GITHUB_REF_NAME": "main",
    "GITHUB_SHA": "9fceb02",
    "GITHUB_RUN_ID": "77",
}
FLAGS = ("repository", "branch", "commit", "pull_request", "ci_run_url")


@pytest.mark.parametrize("command", ["check", "run"])
def test_both_commands_take_the_provenance_flags(command: str) -> None:
    group = typer.main.get_command(app)
    options = {param.name: param.opts for param in group.commands[command].params}  # type: ignore[attr-defined]
    for name in FLAGS:
        assert options[name] == [f"--{name.replace('_', '-')}"]
    if command == "check":
        assert options["against_history"] == ["--against-history"]
        assert options["history_max_growth_pct"] == ["--history-max-growth-pct"]


def test_the_ci_environment_is_used_when_no_flag_is_given() -> None:
    assert ProvenanceFlags().resolve(env=GITHUB) == {
        "repository": "acme/shop",
        "branch": "main",
        "commit": "9fceb02",
        "ci_run_url": "https://github.com/acme/shop/actions/runs/77",
        "ci_system": "github-actions",
    }


def test_a_flag_wins_over_the_file_which_wins_over_the_ci() -> None:
    given = {"branch": "from-file", "pull_request": "5"}
    resolved = ProvenanceFlags(commit="deadbeef").resolve(given, env=GITHUB)
    assert resolved is not None
    assert (resolved["commit"], resolved["branch"], resolved["pull_request"]) == ("deadbeef", "from-file", "5")
    assert resolved["repository"] == "acme/shop"


def test_nothing_known_sends_no_provenance() -> None:
    assert ProvenanceFlags().resolve(env={}) is None


def test_a_bad_flag_is_refused_naming_it() -> None:
    with pytest.raises(typer.BadParameter) as error:
        ProvenanceFlags(commit="x" * 65).resolve(env={})
    assert error.value.param_hint == "--commit"


def test_the_history_gate_is_sent_as_against_history() -> None:
    assert history_gate("main:10", 2.5) == {"branch": "main", "points": 10, "max_growth_pct": 2.5}
    with pytest.raises(typer.BadParameter, match="BRANCH:N") as error:
        history_gate("main", 5)
    assert error.value.param_hint == "--against-history"


def test_run_resolves_the_specs_provenance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in GITHUB.items():
        monkeypatch.setenv(name, value)
    path = tmp_path / "spec.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "service": {"kind": "demo", "language": "go"},
                "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
                "load": {"rate": 100, "duration_s": 2},
                "provenance": {"branch": "from-file"},
            }
        )
    )
    spec = with_provenance(load_spec_file(path), ProvenanceFlags(commit="abc"))
    assert spec.provenance is not None
    assert (spec.provenance.branch, spec.provenance.commit, spec.provenance.repository) == (
        "from-file",
        "abc",
        "acme/shop",
    )
