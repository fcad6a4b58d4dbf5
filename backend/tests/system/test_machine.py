"""The machine fingerprint's pure parts: /proc/cpuinfo read on x86 and Arm, DMI strings, and
a hash that stays put for the same machine and moves when what matters moves."""

from __future__ import annotations

from typing import Any

import pytest

from tracetax.system.machine import (
    FINGERPRINT_CHARS,
    GIB,
    fingerprint_of,
    machine_fingerprint,
    parse_cpuinfo,
    virtualization_from_dmi,
)

X86_VM = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7B13
flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm

processor\t: 1
model name\t: AMD EPYC 7B13
flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm
"""
X86_METAL = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\nflags\t\t: fpu vme de pse\n"
ARM64 = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"

MACHINE: dict[str, Any] = {
    "cpu_model": "AMD EPYC 7B13",
    "cores": 4,
    "memory_bytes": 16 * GIB - 300 * 2**20,
    "kernel": "6.8.0-1017-gcp",
    "virtualization": "kvm",
}


def test_x86_model_and_hypervisor_flag() -> None:
    assert parse_cpuinfo(X86_VM) == {"cpu_model": "AMD EPYC 7B13", "hypervisor_flag": True}
    assert parse_cpuinfo(X86_METAL)["hypervisor_flag"] is False


def test_arm_names_its_implementer_and_part_and_cannot_tell_a_hypervisor() -> None:
    assert parse_cpuinfo(ARM64) == {"cpu_model": "Arm implementer 0x41 part 0xd0c", "hypervisor_flag": None}


def test_nothing_readable_is_unknown() -> None:
    assert parse_cpuinfo("") == {"cpu_model": None, "hypervisor_flag": None}


@pytest.mark.parametrize(
    ("vendor", "product", "name"),
    [
        ("QEMU", "Standard PC (Q35 + ICH9, 2009)", "qemu"),
        ("Google", "Google Compute Engine", "google"),
        ("Amazon EC2", "m6i.large", "amazon"),
        ("Microsoft Corporation", "Virtual Machine", "microsoft"),
        ("innotek GmbH", "VirtualBox", "oracle"),
        ("Dell Inc.", "PowerEdge R750", None),
        (None, None, None),
    ],
)
def test_dmi_names_the_hypervisor(vendor: str | None, product: str | None, name: str | None) -> None:
    assert virtualization_from_dmi(vendor, product) == name


def test_the_fingerprint_is_stable_and_short() -> None:
    first = fingerprint_of(MACHINE)
    assert first == fingerprint_of(dict(reversed(list(MACHINE.items()))))
    assert len(first) == FINGERPRINT_CHARS
    # A few MiB of memory reserved differently is the same machine.
    assert fingerprint_of({**MACHINE, "memory_bytes": MACHINE["memory_bytes"] + 50 * 2**20}) == first


@pytest.mark.parametrize(
    "change",
    [
        {"cores": 8},
        {"cpu_model": "Intel Xeon"},
        {"memory_bytes": 32 * GIB},
        {"kernel": "6.9.0"},
        {"virtualization": "none"},
    ],
)
def test_what_changes_the_figures_changes_the_fingerprint(change: dict[str, Any]) -> None:
    assert fingerprint_of({**MACHINE, **change}) != fingerprint_of(MACHINE)


def test_this_machine_has_a_fingerprint_of_its_facts() -> None:
    facts = machine_fingerprint()
    assert set(facts) == {"fingerprint", "cpu_model", "cores", "memory_bytes", "kernel", "virtualization"}
    assert facts["cores"] >= 1 and facts["memory_bytes"] > 0
    assert facts["fingerprint"] == fingerprint_of(facts)
