"""Where a check or an experiment came from (repository, branch, commit, pull request, CI run),
and a check's gate against the history of a branch.

Provenance is a label, not part of what is measured: it is stored beside the spec
(`experiments.provenance`), never in it, so two runs of the same spec from two commits still
compare, calibrate and tune as the same spec. Every field is optional: a check run by hand has
none, and an unknown field stays unknown (None), never an empty string.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, ValidationError

from tracetax.spec.inputs import IDENTIFIER_CHARS, URL_PATH_CHARS, InputModel

# A repository as a CI names it: `owner/name`, or a clone URL's host and path.
REPOSITORY_CHARS = 512
# Git refuses no length, but hosts cap a ref at 255 bytes; a little room for a remote's prefix.
BRANCH_CHARS = 256
# A SHA-256 object name is 64 hex digits; other systems' revisions (a Perforce change) are shorter.
COMMIT_CHARS = 64
# A pull or merge request's number (GitHub, GitLab's IID, Bitbucket), or a Gerrit change id.
PULL_REQUEST_CHARS = 64

MIN_HISTORY_POINTS, MAX_HISTORY_POINTS = 2, 100


def _text(max_length: int) -> StringConstraints:
    # Empty is refused rather than stored: unknown is None, and "" would read as a value.
    return StringConstraints(strip_whitespace=True, min_length=1, max_length=max_length)


class Provenance(InputModel):
    """Where a check or an experiment came from. Given by the caller (`tracetax check
    --commit ...`), or detected by the CLI from the CI's own environment
    (tracetax.system.ci.detect_provenance)."""

    repository: Annotated[str, _text(REPOSITORY_CHARS)] | None = Field(
        default=None, description="The repository, e.g. `acme/shop` or `gitlab.example.com/acme/shop`."
    )
    branch: Annotated[str, _text(BRANCH_CHARS)] | None = Field(
        default=None, description="The branch measured (a pull request's source branch)."
    )
    commit: Annotated[str, _text(COMMIT_CHARS)] | None = Field(
        default=None, description="The commit measured (in a pull request's CI run, usually the merge commit tested)."
    )
    pull_request: Annotated[str, _text(PULL_REQUEST_CHARS)] | None = Field(
        default=None, description="The pull or merge request's number, when the run is one's."
    )
    ci_run_url: Annotated[str, _text(URL_PATH_CHARS)] | None = Field(
        default=None, description="The CI run (workflow run, pipeline, build) that asked for it."
    )
    ci_system: Annotated[str, _text(IDENTIFIER_CHARS)] | None = Field(
        default=None, description="The CI system: github-actions, gitlab-ci, jenkins, buildkite, or your own name."
    )


class HistoryGate(InputModel):
    """Gate a check also on its own history: fail when the overhead grew by more than
    `max_growth_pct` against the last `points` checks of `branch` (same service, configuration
    and machine), judged on the stored intervals."""

    branch: Annotated[str, _text(BRANCH_CHARS)] = Field(description="The branch whose history is the reference.")
    points: int = Field(
        default=10,
        ge=MIN_HISTORY_POINTS,
        le=MAX_HISTORY_POINTS,
        description="How many of the branch's latest checks make the reference.",
    )
    max_growth_pct: float = Field(
        default=5.0,
        gt=0,
        le=1000,
        description="The growth allowed, in percentage points of overhead (relative metrics) against the history.",
    )

    @classmethod
    def parse(cls, text: str, max_growth_pct: float = 5.0) -> HistoryGate:
        """The CLI's form `BRANCH:N` (`main:10`); raises ValueError naming that form."""
        branch, separator, points = text.rpartition(":")
        if not separator or not branch.strip() or not points.strip().isdigit():
            raise ValueError(
                f"--against-history takes BRANCH:N, e.g. main:10 (the last N checks of BRANCH); got {text!r}"
            )
        try:
            return cls(branch=branch, points=int(points), max_growth_pct=max_growth_pct)
        except ValidationError as error:
            reasons = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
            raise ValueError(
                f"{text!r}: {reasons} (--against-history takes BRANCH:N with N from {MIN_HISTORY_POINTS} to "
                f"{MAX_HISTORY_POINTS}, e.g. main:10)"
            ) from None
