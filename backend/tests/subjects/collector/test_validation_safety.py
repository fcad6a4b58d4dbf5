"""Pipeline validation runs nothing with the backend's secrets and reads nothing it should not
(issue 21, items 2-4): setting values are literal, the Collector's `validate` sees PATH, a HOME
of its own and LAB_* only, what it says is redacted before a client sees it, and a variant's
config_file is read only from the lab's or the configured overlays directory, as a regular
file under the size cap, never read whole before that is known.

Unmarked tests need no Collector: where one is needed to show the environment it gets, a
small script stands in and reports it. The `services` tests run the real Collector (built by
`make stack-build`) and are skipped without it.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.lab.test_pipelines import needs_collector
from tracetax.lab import pipelines
from tracetax.lab.pipelines import OverlayPolicy, OverlayRefusedError, PipelineConfigError
from tracetax.lab.redact import REDACTED, redact, redact_environment
from tracetax.spec.base import SpecError
from tracetax.spec.collector import PipelineSpec, VariantSpec
from tracetax.subjects.collector.validation import validate_pipelines

SECRET = "postgresql://tracetax:hunter2-very-secret@db.internal/tracetax"
FILE_SECRET = "root:x:0:0:file-secret-line:/root:/bin/sh"
OVERLAY = (
    "# mine: batching with a timeout the lab sets\n"
    "processors:\n"
    "  batch/lab:\n"
    "    timeout: ${env:LAB_BATCH_TIMEOUT:-1s}\n"
    "service:\n"
    "  pipelines:\n"
    "    traces/lab:\n"
    "      processors: [batch/lab]\n"
)


def pipeline_spec(variant: dict[str, Any]) -> dict[str, Any]:
    """A spec of `variant` alone (it is the baseline): nothing else to validate."""
    return {
        "subject": "collector",
        "configurations": [{**variant, "baseline": True}],
        "load": {"spans_per_s": 100, "duration_s": 1},
        "rounds": 1,
    }


def refused_spec(policy: OverlayPolicy, variant: dict[str, Any]) -> list[dict[str, Any]]:
    with pytest.raises(SpecError) as raised:
        validate_pipelines(PipelineSpec.model_validate(pipeline_spec(variant)), policy)
    return [error for error in raised.value.errors if error["loc"] != ("load",)]


# -- setting values are literal ----------------------------------------------------------------


@pytest.mark.parametrize("value", ["${env:TRACETAX_DATABASE_URL}", "${file:/etc/passwd}", "$HOME", "1s${x}"])
def test_a_setting_value_asking_for_expansion_is_refused_at_its_key(value: str) -> None:
    with pytest.raises(ValidationError) as raised:
        VariantSpec(pipeline="batch-tuned", settings={"LAB_BATCH_TIMEOUT": value})
    (error,) = raised.value.errors(include_input=False)
    assert error["loc"] == ("settings", "LAB_BATCH_TIMEOUT")
    assert "literal" in error["msg"] and "`$` is refused" in error["msg"]


def test_literal_setting_values_still_pass() -> None:
    variant = VariantSpec(pipeline="memory-limited", settings={"LAB_MEMORY_LIMIT_MIB": "256", "LAB_X": "1.5s"})
    assert variant.settings == {"LAB_MEMORY_LIMIT_MIB": "256", "LAB_X": "1.5s"}


# -- the validating Collector's environment and what comes back ---------------------------------


def fake_collector(tmp_path: Path, report: Path, said: str) -> Path:
    """Stands in for `otelcol validate`: writes the environment it was given to `report`, then
    refuses the config the way the Collector does, quoting the value it read (`said`: shell
    text, expanded as the Collector expands ${env:...} and ${file:...})."""
    script = tmp_path / "otelcol"
    script.write_text(
        "#!/bin/sh\n"
        f"env > '{report}'\n"
        'echo "Error: failed to get config: cannot unmarshal the configuration: decoding failed due to the '
        f'following error(s):" >&2\n'
        f"echo \"'processors' error reading configuration for \\\"batch/lab\\\": 'timeout' time: "
        f'invalid duration \\"{said}\\"" >&2\n'
        "exit 1\n"
    )
    script.chmod(0o755)
    return script


def mine(tmp_path: Path) -> list[Path]:
    overlay = tmp_path / "mine.yaml"
    overlay.write_text(OVERLAY)
    return [pipelines.BASE_CONFIG, overlay]


def test_validate_gives_the_collector_path_a_home_of_its_own_and_lab_variables_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRACETAX_DATABASE_URL", SECRET)
    report = tmp_path / "env.txt"
    collector = fake_collector(tmp_path, report, "${TRACETAX_DATABASE_URL}soon")
    lab = pipelines.placeholder_environment({"LAB_BATCH_TIMEOUT": "soon"})
    with pytest.raises(PipelineConfigError) as raised:
        pipelines.validate(mine(tmp_path), lab, collector)
    seen = dict(line.split("=", 1) for line in report.read_text().splitlines() if "=" in line)
    # What sh adds itself (PWD, SHLVL, _) aside, nothing but PATH, HOME and LAB_*.
    given = {name for name in seen if name not in {"PWD", "SHLVL", "_", "OLDPWD"}}
    assert given == {"PATH", "HOME", *lab}
    assert "TRACETAX_DATABASE_URL" not in seen
    assert seen["HOME"] != os.environ.get("HOME") and not Path(seen["HOME"]).exists()  # a temporary one, removed
    assert SECRET not in str(raised.value)
    (error,) = raised.value.errors
    # Still useful: the component, its line and the key.
    assert error["component"] == "batch/lab" and error["line"] == 4
    assert "'timeout' time: invalid duration" in error["msg"]


def test_validate_refuses_to_pass_anything_but_lab_variables(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="LAB_\\* variables only, not TRACETAX_DATABASE_URL"):
        pipelines.validation_environment({"TRACETAX_DATABASE_URL": SECRET}, tmp_path)


def test_what_the_collector_quotes_from_elsewhere_is_redacted(tmp_path: Path) -> None:
    secret_file = tmp_path / "passwd"
    secret_file.write_text(FILE_SECRET + "\n")
    report = tmp_path / "env.txt"
    # As if a config had read ${file:...}: the Collector quotes what the file holds.
    collector = fake_collector(tmp_path, report, f"$(cat '{secret_file}')")
    with pytest.raises(PipelineConfigError) as raised:
        pipelines.validate(mine(tmp_path), pipelines.placeholder_environment(), collector)
    text = str(raised.value)
    assert FILE_SECRET not in text and "file-secret" not in text
    assert f'invalid duration "{REDACTED}"' in text
    # What we gave is echoed as it was: the key, the component, our own value.
    collector = fake_collector(tmp_path, report, "soon")
    with pytest.raises(PipelineConfigError) as raised:
        pipelines.validate(mine(tmp_path), pipelines.placeholder_environment({"LAB_BATCH_TIMEOUT": "soon"}), collector)
    assert 'invalid duration "soon"' in str(raised.value)


def test_redact_keeps_our_input_and_takes_out_the_rest_and_the_environment() -> None:
    environ = {"TRACETAX_DATABASE_URL": SECRET, "HOME": "/home/someone", "LANG": "C.UTF-8", "SHORT": "abc"}
    message = f'\'timeout\' time: invalid duration "{SECRET}" for "batch/lab" (`mine`) at /home/someone {SECRET}'
    out = redact(message, ["processors:\n  batch/lab:\n    timeout: x", "mine"], environ)
    assert SECRET not in out
    assert out.startswith('\'timeout\' time: invalid duration "<redacted>" for "batch/lab" (`mine`)')
    assert out.endswith("at /home/someone <redacted>")  # HOME is no secret; the bare value is
    assert redact_environment("abc and C.UTF-8", "", environ) == "abc and C.UTF-8"


# -- real Collector -----------------------------------------------------------------------------


@pytest.mark.services
@needs_collector
@pytest.mark.parametrize("reference", ["${env:TRACETAX_DATABASE_URL}", "${file:SECRET_FILE}"])
def test_the_real_collector_never_sees_or_echoes_a_secret(
    reference: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below the spec's refusal of `$`: even a LAB_* value that asks for expansion (as the spec
    no longer lets one) finds nothing of the backend's environment, and what the Collector
    quotes back of a file is redacted."""
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text(FILE_SECRET)
    monkeypatch.setenv("TRACETAX_DATABASE_URL", SECRET)
    value = reference.replace("SECRET_FILE", str(secret_file))
    files = pipelines.config_files("batch-tuned", None)
    try:
        # The environment's value is not there to expand: the config may well pass.
        pipelines.validate(files, pipelines.placeholder_environment({"LAB_BATCH_TIMEOUT": value}))
        text = ""
    except PipelineConfigError as error:
        text = str(error)
        assert error.errors[0]["component"] == "batch/lab", error.errors
    assert SECRET not in text and "hunter2" not in text
    assert FILE_SECRET not in text and "file-secret" not in text


# -- config_file: where from, what kind, how large -------------------------------------------------


def overlays(tmp_path: Path, max_bytes: int = 4096) -> OverlayPolicy:
    directory = tmp_path / "overlays"
    directory.mkdir(exist_ok=True)
    return OverlayPolicy(directory, max_bytes)


def test_an_overlay_in_the_configured_directory_or_the_labs_own_is_taken(tmp_path: Path) -> None:
    policy = overlays(tmp_path)
    assert policy.overlays_dir is not None
    overlay = policy.overlays_dir / "mine.yaml"
    overlay.write_text(OVERLAY)
    assert pipelines.config_files(None, overlay, policy) == [pipelines.BASE_CONFIG, overlay.resolve()]
    shipped = pipelines.LAB_DIR / "batch-tuned.yaml"
    assert pipelines.config_files(None, shipped, policy)[1] == shipped.resolve()
    # Without a policy, the lab's own directory only.
    assert pipelines.config_files(None, shipped)[1] == shipped.resolve()
    with pytest.raises(OverlayRefusedError):
        pipelines.config_files(None, overlay)


@pytest.mark.parametrize(
    "outside",
    [
        lambda tmp: Path("/etc/passwd"),
        lambda tmp: tmp / "overlays" / ".." / "elsewhere.yaml",  # `..` out of the directory
        lambda tmp: tmp / "elsewhere.yaml",
    ],
)
def test_an_overlay_outside_the_allowed_directories_is_refused_naming_them(tmp_path: Path, outside: Any) -> None:
    (tmp_path / "elsewhere.yaml").write_text(OVERLAY)
    policy = overlays(tmp_path)
    (error,) = refused_spec(policy, {"name": "mine", "config_file": str(outside(tmp_path))})
    assert error["loc"] == ("configurations", 0, "config_file")
    assert str(pipelines.LAB_DIR) in error["msg"] and str(policy.overlays_dir) in error["msg"]
    assert "TRACETAX_PIPELINE_OVERLAYS_DIR" in error["msg"]
    assert "root:" not in error["msg"]


def test_a_symlink_out_of_the_directory_is_followed_and_refused(tmp_path: Path) -> None:
    policy = overlays(tmp_path)
    assert policy.overlays_dir is not None
    (policy.overlays_dir / "passwd.yaml").symlink_to("/etc/passwd")
    (error,) = refused_spec(policy, {"name": "mine", "config_file": str(policy.overlays_dir / "passwd.yaml")})
    assert "is not under" in error["msg"] and "symlinks followed" in error["msg"]


def test_dev_zero_is_refused_without_being_read(tmp_path: Path) -> None:
    # Even with /dev allowed: /dev/zero is no regular file (read whole, it never ends).
    (error,) = refused_spec(OverlayPolicy(Path("/dev")), {"name": "zero", "config_file": "/dev/zero"})
    assert error["loc"] == ("configurations", 0, "config_file")
    assert "a character device, not a regular file" in error["msg"]


def test_a_fifo_and_a_directory_are_refused_at_once(tmp_path: Path) -> None:
    policy = overlays(tmp_path)
    assert policy.overlays_dir is not None
    fifo = policy.overlays_dir / "fifo.yaml"
    os.mkfifo(fifo)
    (policy.overlays_dir / "dir.yaml").mkdir()
    outcome: list[Any] = []
    # A FIFO with no writer blocks a plain open() for good: run it where a hang fails the test.
    worker = threading.Thread(
        target=lambda: outcome.append(refused_spec(policy, {"name": "fifo", "config_file": str(fifo)})), daemon=True
    )
    worker.start()
    worker.join(timeout=10)
    assert outcome, "reading a FIFO overlay blocked"
    assert "a FIFO, not a regular file" in outcome[0][0]["msg"]
    (error,) = refused_spec(policy, {"name": "dir", "config_file": str(policy.overlays_dir / "dir.yaml")})
    assert "a directory, not a regular file" in error["msg"]


def test_an_overlay_over_the_size_cap_is_refused_naming_the_setting(tmp_path: Path) -> None:
    policy = overlays(tmp_path, max_bytes=2048)
    assert policy.overlays_dir is not None
    large = policy.overlays_dir / "large.yaml"
    large.write_text(OVERLAY + "#" * 2048 + "\n")
    (error,) = refused_spec(policy, {"name": "large", "config_file": str(large)})
    assert "larger than 2048 bytes" in error["msg"] and "TRACETAX_MAX_CONFIG_FILE_BYTES" in error["msg"]


def test_a_missing_overlay_in_the_directory_says_so(tmp_path: Path) -> None:
    policy = overlays(tmp_path)
    assert policy.overlays_dir is not None
    (error,) = refused_spec(policy, {"name": "gone", "config_file": str(policy.overlays_dir / "gone.yaml")})
    assert "cannot be read: No such file or directory" in error["msg"]


def test_read_config_reads_no_more_than_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("a: 1\n" * 1000)
    with pytest.raises(OverlayRefusedError, match="larger than 1024 bytes"):
        pipelines.read_config(path, 1024)
    assert pipelines.read_config(path, 5000) == "a: 1\n" * 1000
    assert stat.S_ISREG(path.stat().st_mode)


def test_the_backend_policy_comes_from_its_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetax.core.config import Settings

    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path / "state"))
    default = OverlayPolicy.from_settings(Settings(max_config_file_bytes=4096))
    assert default == OverlayPolicy(tmp_path / "state" / "pipeline-overlays", 4096)
    configured = OverlayPolicy.from_settings(Settings(pipeline_overlays_dir=tmp_path / "mine"))
    assert configured.overlays_dir == tmp_path / "mine"


# -- names that become path components ---------------------------------------------------------


@pytest.mark.parametrize("name", ["../x", "a/b", "..", ".", ".hidden", "x/../../y", "/abs"])
def test_no_configuration_name_can_become_a_path_of_its_own(name: str) -> None:
    """A round's work directory is `<work dir>/<experiment id>/r<round>-<configuration name>`
    (the id is the backend's own): the name pattern keeps it one plain component."""
    import re

    from tracetax.spec import collector as lab_spec
    from tracetax.spec import service as service_spec

    for pattern in (service_spec.NAME_PATTERN, lab_spec.NAME_PATTERN):
        assert re.match(pattern, name) is None, (pattern, name)
    with pytest.raises(ValidationError):
        VariantSpec(name=name, pipeline="passthrough")
