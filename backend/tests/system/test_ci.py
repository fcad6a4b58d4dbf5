"""Provenance detected from each CI system's documented job environment (docs/ci-checks.md):
the variables as each CI sets them in a branch build and in a pull (merge) request's build."""

from __future__ import annotations

import pytest

from tracetax.system.ci import detect_provenance, repository_of_url, with_explicit

SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8"

GITHUB_PUSH = {
    "CI": "true",
    "GITHUB_ACTIONS": "true",
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "acme/shop",
    "GITHUB_REF": "refs/heads/main",
    "GITHUB_REF_NAME": "main",
    "GITHUB_HEAD_REF": "",  # set, empty, outside pull requests
    "GITHUB_SHA": SHA,
    "GITHUB_RUN_ID": "1658821493",
}
GITHUB_PULL_REQUEST = {
    **GITHUB_PUSH,
    "GITHUB_REF": "refs/pull/42/merge",
    "GITHUB_REF_NAME": "42/merge",
    "GITHUB_HEAD_REF": "faster-export",
    "GITHUB_BASE_REF": "main",
}
GITLAB_BRANCH = {
    "CI": "true",
    "GITLAB_CI": "true",
    "CI_PROJECT_PATH": "acme/shop",
    "CI_COMMIT_REF_NAME": "main",
    "CI_COMMIT_SHA": SHA,
    "CI_PIPELINE_URL": "https://gitlab.example.com/acme/shop/-/pipelines/981",
    "CI_JOB_URL": "https://gitlab.example.com/acme/shop/-/jobs/5521",
}
GITLAB_MERGE_REQUEST = {
    **GITLAB_BRANCH,
    "CI_COMMIT_REF_NAME": "faster-export",
    "CI_MERGE_REQUEST_IID": "17",
    "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "faster-export",
    "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
}
JENKINS_FREESTYLE = {
    "JENKINS_URL": "https://ci.example.com/",
    "GIT_URL": "https://ci-bot:s3cret@github.com/acme/shop.git",
    "GIT_BRANCH": "origin/main",
    "GIT_COMMIT": SHA,
    "BUILD_URL": "https://ci.example.com/job/shop/312/",
}
JENKINS_MULTIBRANCH_PR = {
    "JENKINS_URL": "https://ci.example.com/",
    "GIT_URL": "git@github.com:acme/shop.git",
    "BRANCH_NAME": "PR-24",
    "CHANGE_ID": "24",
    "CHANGE_BRANCH": "faster-export",
    "CHANGE_TARGET": "main",
    "GIT_COMMIT": SHA,
    "BUILD_URL": "https://ci.example.com/job/shop/job/PR-24/3/",
}
BUILDKITE_BRANCH = {
    "BUILDKITE": "true",
    "BUILDKITE_REPO": "git@github.com:acme/shop.git",
    "BUILDKITE_BRANCH": "main",
    "BUILDKITE_COMMIT": SHA,
    "BUILDKITE_PULL_REQUEST": "false",
    "BUILDKITE_BUILD_URL": "https://buildkite.com/acme/shop/builds/1514",
}
BUILDKITE_PULL_REQUEST = {**BUILDKITE_BRANCH, "BUILDKITE_BRANCH": "faster-export", "BUILDKITE_PULL_REQUEST": "42"}


def test_github_actions_on_a_branch() -> None:
    assert detect_provenance(GITHUB_PUSH) == {
        "repository": "acme/shop",
        "branch": "main",
        "commit": SHA,
        "ci_run_url": "https://github.com/acme/shop/actions/runs/1658821493",
        "ci_system": "github-actions",
    }


def test_github_actions_in_a_pull_request_names_its_source_branch_and_number() -> None:
    found = detect_provenance(GITHUB_PULL_REQUEST)
    assert found["branch"] == "faster-export"  # not GITHUB_REF_NAME's "42/merge"
    assert found["pull_request"] == "42"
    assert found["commit"] == SHA


def test_gitlab_ci_on_a_branch() -> None:
    assert detect_provenance(GITLAB_BRANCH) == {
        "repository": "acme/shop",
        "branch": "main",
        "commit": SHA,
        "ci_run_url": "https://gitlab.example.com/acme/shop/-/pipelines/981",
        "ci_system": "gitlab-ci",
    }


def test_gitlab_ci_in_a_merge_request() -> None:
    found = detect_provenance(GITLAB_MERGE_REQUEST)
    assert (found["branch"], found["pull_request"]) == ("faster-export", "17")


def test_gitlab_ci_without_a_pipeline_url_links_the_job() -> None:
    found = detect_provenance({**GITLAB_BRANCH, "CI_PIPELINE_URL": ""})
    assert found["ci_run_url"] == "https://gitlab.example.com/acme/shop/-/jobs/5521"


def test_jenkins_freestyle_strips_the_remote_and_the_credentials() -> None:
    assert detect_provenance(JENKINS_FREESTYLE) == {
        "repository": "github.com/acme/shop",  # never the token in GIT_URL
        "branch": "main",
        "commit": SHA,
        "ci_run_url": "https://ci.example.com/job/shop/312/",
        "ci_system": "jenkins",
    }


def test_jenkins_multibranch_pull_request() -> None:
    found = detect_provenance(JENKINS_MULTIBRANCH_PR)
    assert found["branch"] == "faster-export"  # not BRANCH_NAME's "PR-24"
    assert found["pull_request"] == "24"
    assert found["repository"] == "github.com/acme/shop"


def test_buildkite_on_a_branch_has_no_pull_request() -> None:
    assert detect_provenance(BUILDKITE_BRANCH) == {
        "repository": "github.com/acme/shop",
        "branch": "main",
        "commit": SHA,
        "ci_run_url": "https://buildkite.com/acme/shop/builds/1514",
        "ci_system": "buildkite",
    }


def test_buildkite_pull_request() -> None:
    assert detect_provenance(BUILDKITE_PULL_REQUEST)["pull_request"] == "42"


def test_buildkite_symbolic_commit_is_unknown() -> None:
    assert "commit" not in detect_provenance({**BUILDKITE_BRANCH, "BUILDKITE_COMMIT": "HEAD"})


def test_outside_ci_nothing_is_detected() -> None:
    assert detect_provenance({"HOME": "/home/me", "CI": "true"}) == {}


def test_a_ci_with_its_variables_missing_gives_only_what_it_has() -> None:
    assert detect_provenance({"GITHUB_ACTIONS": "true", "GITHUB_SHA": SHA}) == {
        "commit": SHA,
        "ci_system": "github-actions",
    }


def test_explicit_values_win_and_unset_ones_keep_the_detected() -> None:
    detected = detect_provenance(GITHUB_PUSH)
    merged = with_explicit(detected, {"commit": "abc123", "branch": None, "pull_request": "7"})
    assert merged["commit"] == "abc123"
    assert merged["branch"] == "main"
    assert merged["pull_request"] == "7"


@pytest.mark.parametrize(
    ("url", "repository"),
    [
        ("https://github.com/acme/shop.git", "github.com/acme/shop"),
        ("https://user:token@gitlab.example.com:8443/group/sub/shop.git", "gitlab.example.com/group/sub/shop"),
        ("git@github.com:acme/shop.git", "github.com/acme/shop"),
        ("ssh://git@github.com:22/acme/shop.git", "github.com/acme/shop"),
        ("", None),
    ],
)
def test_clone_urls_become_host_and_path(url: str, repository: str | None) -> None:
    assert repository_of_url(url) == repository
