"""`tracetax check`'s verdict with --against-history: the same-run verdict and the judgements
against history together decide the exit code (1 fail, 2 error), and a branch's first checks
(no history yet) neither fail nor err."""

from __future__ import annotations

from typing import Any

import pytest

from tracetax.cli.check import EXIT_ERROR, EXIT_FAIL, EXIT_PASS, exit_code, overall_verdict


def status(same_run: str, *history: str) -> dict[str, Any]:
    judgements = [{"metric": "p99", "verdict": verdict, "reason": "", "points": 3} for verdict in history]
    return {"verdict": {"verdict": same_run, "lines": []}, "history": judgements or None}


@pytest.mark.parametrize(
    ("given", "verdict", "code"),
    [
        (status("pass"), "pass", EXIT_PASS),
        (status("pass", "pass", "no_history"), "pass", EXIT_PASS),
        (status("pass", "fail"), "fail", EXIT_FAIL),
        (status("fail", "pass"), "fail", EXIT_FAIL),
        (status("pass", "inconclusive"), "error", EXIT_ERROR),
        (status("error", "pass"), "error", EXIT_ERROR),
        (status("error", "fail"), "fail", EXIT_FAIL),
    ],
)
def test_the_exit_code_carries_both_verdicts(given: dict[str, Any], verdict: str, code: int) -> None:
    assert overall_verdict(given) == verdict
    assert exit_code(given) == code


@pytest.mark.parametrize(("overall", "code"), [("pass", EXIT_PASS), ("fail", EXIT_FAIL), ("error", EXIT_ERROR)])
def test_the_servers_overall_verdict_decides_when_given(overall: str, code: int) -> None:
    # The server's `overall` wins over what the CLI would combine (an older server sends none).
    given = {**status("pass", "pass"), "overall": overall}
    assert overall_verdict(given) == overall
    assert exit_code(given) == code
