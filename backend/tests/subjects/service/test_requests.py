"""How a load's requests reach oha: method, headers, body, and a weighted mix of URLs."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

from tracetax.engine.loadgen import PRIVATE_PREFIX, OhaRun, Requests, _request_options, discard_private_files
from tracetax.spec.service import LoadSpec
from tracetax.subjects.service.runner import requests_of


def test_one_url_is_the_target(tmp_path: Path) -> None:
    assert _request_options(Requests.get("http://h/x"), tmp_path) == [
        "-m",
        "GET",
        "http://h/x",
    ]


def test_a_mix_is_written_once_per_weight_unit(tmp_path: Path) -> None:
    requests = Requests(urls=(("http://h/a", 6), ("http://h/b", 2)), method="POST", headers=(("x-k", "v"),), body="{}")
    options = _request_options(requests, tmp_path / "phase")
    assert options[:5] == ["-m", "POST", "-H", "x-k: v", "-D"]
    assert options[6] == "--urls-from-file"
    assert Path(options[7]).read_text().split() == ["http://h/a"] * 3 + ["http://h/b"]
    assert Path(options[5]).read_text() == "{}"


def test_a_body_is_written_where_no_input_can_name_it(tmp_path: Path) -> None:
    """Not at a path a spec could name (once `<work dir>/<id>/r0-<cfg>/warmup/request-body`,
    another program's config file for the asking): a 0600 file of random name in a 0700
    directory of random name, gone when the phase's oha has exited."""
    requests = Requests(urls=(("http://h/a", 1), ("http://h/b", 1)), method="POST", headers=(), body="import os\n")
    phase = tmp_path / "warmup"
    first, second = _request_options(requests, phase), _request_options(requests, phase)
    body, urls = Path(first[first.index("-D") + 1]), Path(first[-1])
    assert not (phase / "request-body").exists() and not (phase / "urls.txt").exists()
    assert body.parent == urls.parent and body.parent.parent == phase
    assert body.parent.name.startswith(PRIVATE_PREFIX) and body.name != "body"
    assert stat.S_IMODE(body.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(body.stat().st_mode) == stat.S_IMODE(urls.stat().st_mode) == 0o600
    assert Path(second[second.index("-D") + 1]).parent != body.parent  # each time a new name
    discard_private_files(phase)
    assert not body.exists() and not list(phase.glob(f"{PRIVATE_PREFIX}*"))


def test_the_phase_removes_its_private_files_when_oha_exits(tmp_path: Path) -> None:
    body = Path(_request_options(Requests(urls=(("http://h/a", 1),), method="PUT", body="x"), tmp_path)[3])
    process = subprocess.Popen(["true"])  # stands in for oha; only its exit matters here
    run = OhaRun(process, [tmp_path / "open.json"], [], tmp_path / "open.log", 1.0, 1)
    process.wait()
    assert body.exists()
    assert run.poll() == 0
    assert not body.exists()
    killed = Path(_request_options(Requests(urls=(("http://h/a", 1),), method="PUT", body="x"), tmp_path)[3])
    run.kill()
    assert not killed.exists()


def test_the_spec_becomes_requests_against_the_service() -> None:
    load = LoadSpec.model_validate({"rate": 1, "paths": [{"path": "/get", "weight": 2}], "headers": {"a": "b"}})
    assert requests_of(load, "http://127.0.0.1:9") == Requests(
        urls=(("http://127.0.0.1:9/get", 2),), method="GET", headers=(("a", "b"),), body=None
    )
    demo = LoadSpec.model_validate({"rate": 1})
    assert requests_of(demo, "http://s").urls == (("http://s/work?iters=1000&spans=5", 1),)


def test_durations_reach_oha_in_whole_milliseconds() -> None:
    from tracetax.engine.loadgen import oha_duration

    assert oha_duration(7.300000000000001) == "7300ms"
    assert oha_duration(1) == "1000ms"
