"""The samplers' output parsers on output in the tools' own formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracetax.profiling.samplers import NodeCpuProfile, SamplerError, fold_cpuprofile, fold_jfr_text

JFR_TEXT = """jdk.ExecutionSample {
  startTime = 15:33:52.000
  sampledThread = "http-worker-1" (javaThreadId = 16)
  state = "STATE_RUNNABLE"
  stackTrace = [
    com.sun.net.httpserver.Headers.normalize(String) line: 98
    sun.net.httpserver.ServerImpl$Exchange.run() line: 709
    java.lang.Thread.run() line: 840
  ]
}

jdk.ExecutionSample {
  startTime = 15:33:52.003
  sampledThread = "okhttp-dispatch-3" (javaThreadId = 23)
  state = "STATE_RUNNABLE"
  stackTrace = [
    okhttp3.Dispatcher.promoteAndExecute(RealCall$AsyncCall, RealCall, RealCall$AsyncCall) line: 218
    java.lang.Thread.run() line: 840
  ]
}

jdk.ExecutionSample {
  startTime = 15:33:52.004
  sampledThread = "http-worker-2" (javaThreadId = 17)
  state = "STATE_RUNNABLE"
  stackTrace = [
    com.sun.net.httpserver.Headers.normalize(String) line: 98
    sun.net.httpserver.ServerImpl$Exchange.run() line: 709
    java.lang.Thread.run() line: 840
  ]
}
"""


def test_jfr_text_folds_root_first_with_numbered_threads_merged() -> None:
    assert fold_jfr_text(JFR_TEXT) == {
        "thread http-worker-*;java.lang.Thread.run;sun.net.httpserver.ServerImpl$Exchange.run;"
        "com.sun.net.httpserver.Headers.normalize": 2,
        "thread okhttp-dispatch-*;java.lang.Thread.run;okhttp3.Dispatcher.promoteAndExecute": 1,
    }


def profile() -> dict[str, object]:
    def node(ident: int, name: str, children: list[int], url: str = "") -> dict[str, object]:
        return {"id": ident, "callFrame": {"functionName": name, "url": url}, "children": children}

    nodes = [
        node(1, "(root)", [2, 3, 4]),
        node(2, "parserOnIncoming", [5], "node:_http_server"),
        node(3, "(idle)", []),
        node(4, "(garbage collector)", []),
        node(5, "work", [], "file:///svc/handler.js"),
    ]
    # Samples at 1000, 2000, ..., 6000 µs.
    return {"nodes": nodes, "startTime": 0, "samples": [5, 3, 5, 4, 5, 2], "timeDeltas": [1000] * 6}


def test_cpuprofile_is_cut_to_the_window_and_idle_is_left_out() -> None:
    folded = fold_cpuprofile(profile(), (2000, 5000))
    assert folded == {
        "thread main;(garbage collector)": 1,
        "thread main;parserOnIncoming node:_http_server;work file:///svc/handler.js": 2,
    }


def test_cpuprofile_without_a_window_keeps_every_busy_sample() -> None:
    assert fold_cpuprofile(profile()) == {
        "thread main;(garbage collector)": 1,
        "thread main;parserOnIncoming node:_http_server;work file:///svc/handler.js": 3,
        "thread main;parserOnIncoming node:_http_server": 1,
    }


def test_node_sampler_leaves_argv_alone_and_names_a_missing_profile(tmp_path: Path) -> None:
    sampler = NodeCpuProfile(tmp_path, tmp_path)
    assert sampler.argv(["node", "main.js"]) == ["node", "main.js"]
    directory = Path(sampler.environment()["TRACETAX_CPU_PROFILE_DIR"])
    assert directory.is_absolute() and directory.is_dir()
    sampler.end_window()  # never started: nothing to stop
    with pytest.raises(SamplerError, match=r"no \.cpuprofile"):
        sampler.folded()


def test_perf_script_folds_root_first_with_the_thread_first() -> None:
    text = "python3 12345\n\tffff1 leaf_fn\n\tffff2 caller_fn\n\tffff3 main\n\ngunicorn 12346\n\tffff4 read\n"
    from tracetax.profiling.samplers import fold_perf_script

    assert fold_perf_script(text) == {"thread python3;main;caller_fn;leaf_fn": 1, "thread gunicorn;read": 1}


def test_the_runtime_of_a_process_tree_is_detected() -> None:
    import os

    from tracetax.profiling.samplers import detect_runtime

    assert detect_runtime(os.getpid()) == ("python", os.getpid())


def test_py_spy_subprocess_chains_are_folded_away(tmp_path: Path) -> None:
    from tracetax.profiling.samplers import PySpy

    sampler = PySpy(tmp_path, tmp_path)
    sampler.output = tmp_path / "py-spy.folded"
    chain = 'process 1:"python gunicorn -w 1 app:app";process 2:"python gunicorn -w 1 app:app";'
    sampler.output.write_text(f"{chain}thread (2): MainThread;handle (app.py:3) 7\n")
    assert sampler.folded() == {"thread MainThread;handle (app.py:3)": 7}
