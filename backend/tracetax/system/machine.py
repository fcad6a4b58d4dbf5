"""What machine a measurement ran on, and a short fingerprint of it: a history compares only
points measured on the same kind of machine (a CI runner's overhead on 2 shared vCPUs is not a
workstation's on 16 cores).

The fingerprint hashes what changes the figures: the CPU model, the logical cores, the memory
(rounded to GiB, so the few MiB a kernel reserves differently do not split a machine in two),
the kernel release and the virtualization. Not the host name: CI runners are new hosts every
run, of the same kind.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

import psutil

CPUINFO = Path("/proc/cpuinfo")
DMI = Path("/sys/class/dmi/id")
FINGERPRINT_CHARS = 12
DETECT_VIRT_TIMEOUT_S = 5.0
GIB = 2**30

# A hypervisor's name as DMI's sys_vendor or product_name spell it, and the name
# systemd-detect-virt gives it (so both ways of finding it store the same word).
DMI_HYPERVISORS: tuple[tuple[str, str], ...] = (
    ("kvm", "kvm"),
    ("qemu", "qemu"),
    ("vmware", "vmware"),
    ("virtualbox", "oracle"),
    ("xen", "xen"),
    ("bochs", "bochs"),
    ("parallels", "parallels"),
    ("bhyve", "bhyve"),
    ("openstack", "openstack"),
    ("google compute engine", "google"),
    ("amazon ec2", "amazon"),
    ("microsoft corporation virtual machine", "microsoft"),
)
# Files a container runtime leaves in the container's root.
CONTAINER_MARKERS = ((Path("/.dockerenv"), "docker"), (Path("/run/.containerenv"), "podman"))


def parse_cpuinfo(text: str) -> dict[str, Any]:
    """From /proc/cpuinfo's text: the CPU's model (`model name` on x86, `Hardware` or
    `Processor` or the implementer and part numbers on Arm) and whether the kernel reports a
    hypervisor (x86's `hypervisor` flag; None where the CPU lists no flags)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip() not in fields:
            fields[key.strip()] = value.strip()
    model = fields.get("model name") or fields.get("Hardware") or fields.get("Processor") or fields.get("cpu model")
    if not model and "CPU implementer" in fields:
        model = f"Arm implementer {fields['CPU implementer']} part {fields.get('CPU part', '?')}"
    flags = fields.get("flags")
    return {"cpu_model": model or None, "hypervisor_flag": None if flags is None else "hypervisor" in flags.split()}


def virtualization_from_dmi(sys_vendor: str | None, product_name: str | None) -> str | None:
    """A hypervisor named by the firmware's DMI strings, or None when they name none."""
    text = " ".join(part for part in (sys_vendor, product_name) if part).lower()
    return next((name for marker, name in DMI_HYPERVISORS if marker in text), None)


def fingerprint_of(facts: dict[str, Any]) -> str:
    """A short stable hash of what makes machines comparable (keys in a fixed order; memory
    in whole GiB)."""
    memory = facts.get("memory_bytes")
    identity = {
        "cpu_model": facts.get("cpu_model"),
        "cores": facts.get("cores"),
        "memory_gib": round(memory / GIB) if memory else None,
        "kernel": facts.get("kernel"),
        "virtualization": facts.get("virtualization"),
    }
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
    return digest[:FINGERPRINT_CHARS]


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip() or None
    except OSError:
        return None


def _detect_virt() -> str | None:
    """systemd-detect-virt's answer ("none", or a VM's or container's name), or None when it is
    not installed or gives none."""
    program = shutil.which("systemd-detect-virt")
    if program is None:
        return None
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        # Exit 1 with "none" on bare metal: its answer all the same.
        answer = subprocess.run(
            [program], capture_output=True, text=True, timeout=DETECT_VIRT_TIMEOUT_S, check=False
        ).stdout.strip()
        return answer or None
    return None


def virtualization(hypervisor_flag: bool | None) -> str | None:
    """The virtualization: "none", or the hypervisor's or container's name; "vm" for a hypervisor that does not
    say its name; None when nothing can tell."""
    detected = _detect_virt()
    if detected:
        return detected
    container = next((name for marker, name in CONTAINER_MARKERS if marker.exists()), None)
    if container:
        return container
    from_dmi = virtualization_from_dmi(_read(DMI / "sys_vendor"), _read(DMI / "product_name"))
    if from_dmi:
        return from_dmi
    if hypervisor_flag is None:
        return None  # no flags to read (not x86) and no firmware strings: cannot tell
    return "vm" if hypervisor_flag else "none"


def machine_fingerprint() -> dict[str, Any]:
    """This machine: {fingerprint, cpu_model, cores, memory_bytes, kernel, virtualization};
    a fact that cannot be read is None."""
    cpuinfo = parse_cpuinfo(_read(CPUINFO) or "")
    facts: dict[str, Any] = {
        "cpu_model": cpuinfo["cpu_model"] or platform.processor() or None,
        "cores": psutil.cpu_count(logical=True),
        "memory_bytes": psutil.virtual_memory().total,
        "kernel": platform.release() or None,
        "virtualization": virtualization(cpuinfo["hypervisor_flag"]),
    }
    return {"fingerprint": fingerprint_of(facts), **facts}
