from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracetax.demos.catalog import CatalogError, demo_services, load_manifest


def write(folder: Path, manifest: dict[str, object]) -> Path:
    folder.mkdir(parents=True)
    (folder / "service.json").write_text(json.dumps(manifest))
    return folder


BASE = {"language": "x", "framework": "f", "build": ["make", "build"]}


def test_mode_needing_an_unbuilt_file_is_unavailable_with_the_reason(tmp_path: Path) -> None:
    folder = write(
        tmp_path / "x",
        BASE
        | {
            "modes": {
                "none": {"argv": ["bin/x"]},
                "ebpf": {"argv": ["bin/x-ebpf"], "needs_files": ["bin/agent"], "requires": "clang"},
            }
        },
    )
    manifest = load_manifest(folder)
    assert manifest.modes["none"].available
    assert not manifest.modes["ebpf"].available
    assert manifest.modes["ebpf"].why == "bin/agent not built (clang)"
    (folder / "bin").mkdir()
    (folder / "bin" / "agent").write_text("")
    assert load_manifest(folder).modes["ebpf"].available


def test_invalid_manifest_names_file_and_field(tmp_path: Path) -> None:
    folder = write(tmp_path / "y", BASE | {"modes": {"batch": {"argv": []}}})
    with pytest.raises(CatalogError, match=r"y/service.json: invalid service manifest: modes.batch: .*needs an argv"):
        load_manifest(folder)
    (folder / "service.json").write_text("{not json")
    with pytest.raises(CatalogError, match="cannot read the service manifest"):
        load_manifest(folder)


def test_repository_services_follow_the_contract() -> None:
    services = demo_services()
    assert set(services) >= {"go", "python", "java", "node"}
    for manifest in services.values():
        assert {"none", "simple", "batch"} <= set(manifest.modes)
        assert manifest.queue_full in ("drops the newest span", "evicts the oldest span")
        assert manifest.profiling is not None
        assert manifest.inject_busy_wait == "TRACETAX_INJECT_BUSY_US"
    assert services["java"].dropped_spans_selector("agent") != services["java"].dropped_spans_selector("batch")
