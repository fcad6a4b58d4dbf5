"""How a load's requests reach oha: method, headers, body, and a weighted mix of URLs."""

from __future__ import annotations

from pathlib import Path

from tracetax.engine.loadgen import Requests, _request_options
from tracetax.engine.runner import requests_of
from tracetax.engine.spec import LoadSpec


def test_one_url_is_the_target(tmp_path: Path) -> None:
    assert _request_options(Requests.get("http://h/x"), tmp_path) == [
        "-m",
        "GET",
        "http://h/x",
    ]


def test_a_mix_is_written_once_per_weight_unit(tmp_path: Path) -> None:
    requests = Requests(urls=(("http://h/a", 6), ("http://h/b", 2)), method="POST", headers=(("x-k", "v"),), body="{}")
    options = _request_options(requests, tmp_path / "phase")
    assert options[:4] == ["-m", "POST", "-H", "x-k: v"]
    assert options[4:6] == ["-D", str(tmp_path / "phase" / "request-body")]
    assert options[6:] == ["--urls-from-file", str(tmp_path / "phase" / "urls.txt")]
    assert (tmp_path / "phase" / "urls.txt").read_text().split() == ["http://h/a"] * 3 + ["http://h/b"]
    assert (tmp_path / "phase" / "request-body").read_text() == "{}"


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
