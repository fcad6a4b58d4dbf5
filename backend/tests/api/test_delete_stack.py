"""DELETE on the real stack's backend: a measured experiment's work directory (oha databases,
service logs) and rows go; while it runs the answer is 409 and nothing is removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.test_engine_stack import api, go_spec, needs_tools, wait_final  # noqa: F401 - fixture
from tests.stack_api import stack_client
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack


def work_dir(stack: NativeStack, experiment_id: str) -> Path:
    # The stack's backend keeps its work directories under its state directory (resolved_work_dir).
    return stack.state / "experiments" / experiment_id


async def test_deleting_a_measured_experiment_removes_its_files_and_rows(native_stack: NativeStack) -> None:
    base = api(native_stack)
    # One short round without a side-by-side phase: what is deleted is what any measured round
    # leaves (rows, the oha database, the work directory), not what its phases measured.
    load = {**go_spec()["load"], "warmup_s": 0.5, "duration_s": 1, "max_throughput_s": 0, "side_by_side_s": 0}
    spec = go_spec(name="delete me", rounds=1, load=load)
    async with stack_client(native_stack, timeout=30) as http:
        created = await http.post(f"{base}/experiments", json=spec)
        assert created.status_code == 202, created.text
        experiment_id = created.json()["id"]

        refused = await http.delete(f"{base}/experiments/{experiment_id}")
        assert refused.status_code == 409, refused.text
        assert "cancel it first" in refused.json()["detail"]

        detail = await wait_final(http, base, experiment_id)
        assert detail["status"] == "completed", detail
        directory = work_dir(native_stack, experiment_id)
        assert any(directory.rglob("*.sqlite")), f"no oha database under {directory}"

        deleted = await http.delete(f"{base}/experiments/{experiment_id}")
        assert deleted.status_code == 204, deleted.text
        assert not directory.exists()
        assert (await http.get(f"{base}/experiments/{experiment_id}")).status_code == 404
        assert (await http.get(f"{base}/experiments/{experiment_id}/results")).status_code == 404
