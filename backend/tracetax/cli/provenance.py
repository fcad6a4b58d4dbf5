"""The provenance flags `tracetax check` and `tracetax run` share: `--repository --branch
--commit --pull-request --ci-run-url`, each over what the CI's environment gives
(tracetax.system.ci.detect_provenance) and what a spec file says."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from tracetax.spec.provenance import Provenance
from tracetax.system.ci import PROVENANCE_FIELDS, detect_provenance, with_explicit

RepositoryOption = Annotated[
    str | None, typer.Option(help="Repository (default: the CI's, e.g. GITHUB_REPOSITORY; docs/ci-checks.md).")
]
BranchOption = Annotated[str | None, typer.Option(help="Branch measured (default: the CI's).")]
CommitOption = Annotated[str | None, typer.Option(help="Commit measured (default: the CI's).")]
PullRequestOption = Annotated[str | None, typer.Option(help="Pull or merge request number (default: the CI's).")]
CiRunUrlOption = Annotated[str | None, typer.Option(help="URL of the CI run (default: the CI's).")]


@dataclass(frozen=True)
class ProvenanceFlags:
    """The flags as given; None: not given."""

    repository: str | None = None
    branch: str | None = None
    commit: str | None = None
    pull_request: str | None = None
    ci_run_url: str | None = None

    def resolve(
        self, given: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None
    ) -> dict[str, Any] | None:
        """The provenance to send: the CI's environment, under what the spec or request file
        `given` says, under these flags. None when nothing is known. Raises typer.BadParameter
        naming the field of a value too long or empty."""
        detected = detect_provenance(os.environ if env is None else env)
        merged = with_explicit(with_explicit(detected, dict(given or {})), vars(self))
        if not merged:
            return None
        try:
            return Provenance.model_validate(merged).model_dump(mode="json", exclude_none=True)
        except ValidationError as error:
            problem = error.errors()[0]
            field = ".".join(map(str, problem["loc"]))
            flag = f"--{field.replace('_', '-')}" if field in PROVENANCE_FIELDS else "provenance"
            raise typer.BadParameter(
                f"{field}: {problem['msg']} (given {merged.get(field)!r})", param_hint=flag
            ) from None
