"""Where a CI job runs: the repository, branch, commit, pull request and run URL a CI system
puts in every job's environment, read the same way for GitHub Actions, GitLab CI, Jenkins and
Buildkite (the table in docs/ci-checks.md).

Pure: it reads the mapping it is given (`os.environ` from the CLI), nothing else. A variable
that is unset or empty is unknown and left out, never guessed: the caller gives it with a flag
(`--commit ...`), which wins over what is detected (`with_explicit`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

# The keys of a tracetax.spec.provenance.Provenance, in its order.
PROVENANCE_FIELDS = ("repository", "branch", "commit", "pull_request", "ci_run_url", "ci_system")

# GitHub's ref of a pull request's merge commit (GITHUB_REF in a pull_request workflow).
GITHUB_PULL_REF = re.compile(r"^refs/pull/(\d+)/(?:merge|head)$")
# scp-like git URLs: git@github.com:acme/shop.git
SCP_LIKE_URL = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")
# A commit a CI names symbolically before checkout (Buildkite's BUILDKITE_COMMIT may be HEAD).
SYMBOLIC_COMMITS = {"HEAD"}


def _get(env: Mapping[str, str], *names: str) -> str | None:
    """The first of `names` set to something other than blanks."""
    for name in names:
        value = (env.get(name) or "").strip()
        if value:
            return value
    return None


def repository_of_url(url: str | None) -> str | None:
    """A clone URL as `host/path`, without its credentials, port or `.git`: what GIT_URL and
    BUILDKITE_REPO hold (https://user:token@host/acme/shop.git, git@host:acme/shop.git)."""
    if not url:
        return None
    scp = SCP_LIKE_URL.match(url)
    if scp and "://" not in url:
        host, path = scp.group(1), scp.group(2)
    else:
        parts = urlsplit(url)
        host, path = parts.hostname or "", parts.path
    path = path.strip("/").removesuffix(".git")
    return f"{host}/{path}" if host and path else (path or host or None)


def _github(env: Mapping[str, str]) -> dict[str, str | None]:
    pull = GITHUB_PULL_REF.match(env.get("GITHUB_REF", ""))
    server, repository, run_id = (
        _get(env, name) for name in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    run_url = f"{server.rstrip('/')}/{repository}/actions/runs/{run_id}" if server and repository and run_id else None
    return {
        "repository": repository,
        # In a pull request's run GITHUB_REF_NAME is `<number>/merge`; GITHUB_HEAD_REF its source branch.
        "branch": _get(env, "GITHUB_HEAD_REF", "GITHUB_REF_NAME"),
        "commit": _get(env, "GITHUB_SHA"),
        "pull_request": pull.group(1) if pull else None,
        "ci_run_url": run_url,
    }


def _gitlab(env: Mapping[str, str]) -> dict[str, str | None]:
    return {
        "repository": _get(env, "CI_PROJECT_PATH"),
        "branch": _get(env, "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "CI_COMMIT_REF_NAME"),
        "commit": _get(env, "CI_COMMIT_SHA"),
        "pull_request": _get(env, "CI_MERGE_REQUEST_IID"),
        "ci_run_url": _get(env, "CI_PIPELINE_URL", "CI_JOB_URL"),
    }


def _jenkins(env: Mapping[str, str]) -> dict[str, str | None]:
    # A multibranch job names a pull request's source branch CHANGE_BRANCH (BRANCH_NAME is
    # then `PR-24`); the git plugin's GIT_BRANCH carries the remote (`origin/main`).
    git_branch = _get(env, "GIT_BRANCH")
    return {
        "repository": repository_of_url(_get(env, "GIT_URL")),
        "branch": _get(env, "CHANGE_BRANCH", "BRANCH_NAME")
        or (git_branch.removeprefix("origin/") if git_branch else None),
        "commit": _get(env, "GIT_COMMIT"),
        "pull_request": _get(env, "CHANGE_ID"),
        "ci_run_url": _get(env, "BUILD_URL"),
    }


def _buildkite(env: Mapping[str, str]) -> dict[str, str | None]:
    pull_request = _get(env, "BUILDKITE_PULL_REQUEST")
    commit = _get(env, "BUILDKITE_COMMIT")
    return {
        "repository": repository_of_url(_get(env, "BUILDKITE_REPO")),
        "branch": _get(env, "BUILDKITE_BRANCH"),
        "commit": None if commit in SYMBOLIC_COMMITS else commit,
        # "false" when the build is not a pull request's.
        "pull_request": None if pull_request == "false" else pull_request,
        "ci_run_url": _get(env, "BUILDKITE_BUILD_URL"),
    }


Reader = Callable[[Mapping[str, str]], dict[str, str | None]]
# (name stored as ci_system, the variable that says the job runs there, its reader)
CI_SYSTEMS: tuple[tuple[str, str, Reader], ...] = (
    ("github-actions", "GITHUB_ACTIONS", _github),
    ("gitlab-ci", "GITLAB_CI", _gitlab),
    ("buildkite", "BUILDKITE", _buildkite),
    ("jenkins", "JENKINS_URL", _jenkins),
)


def detect_provenance(env: Mapping[str, str]) -> dict[str, str]:
    """The provenance the CI's environment gives (keys of PROVENANCE_FIELDS, unknown ones left
    out); {} outside the four CI systems."""
    for name, marker, read in CI_SYSTEMS:
        if _get(env, marker):
            found = {key: value for key, value in read(env).items() if value}
            return {**found, "ci_system": name}
    return {}


def with_explicit(detected: Mapping[str, str], explicit: Mapping[str, str | None]) -> dict[str, str]:
    """`explicit` (the flags given) over `detected`: a flag given wins, one not given (None)
    keeps what was detected."""
    return {**detected, **{key: value for key, value in explicit.items() if value is not None}}
