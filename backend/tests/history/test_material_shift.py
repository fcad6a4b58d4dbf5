"""A change point too small to matter: significant (real) but below the relative size a user
would act on. It is listed as such, not counted as a shift; the values carry enough digits to
differ (a shift of a third of a byte read "0 B [0 B, 0 B]")."""

from __future__ import annotations

from tracetax.history.metrics import format_bound, format_growth, format_level, is_material, shift_size_pct


def test_an_overhead_shift_is_sized_in_points_and_other_metrics_relative_to_their_level() -> None:
    assert shift_size_pct(12.0, -3.5, "pct") == 3.5
    size = shift_size_pct(1117.0, 0.31, "bytes")
    assert size is not None and abs(size - 0.0277) < 0.001
    assert shift_size_pct(0.0, 5.0, "spans") is None


def test_a_shift_below_the_threshold_is_not_material() -> None:
    assert not is_material(shift_size_pct(1117.0, 0.31, "bytes"), 1.0)
    assert is_material(shift_size_pct(1117.0, 40.0, "bytes"), 1.0)
    assert is_material(None, 1.0)  # from a level of 0: no relative size, always worth a look


def test_small_byte_values_keep_the_digits_that_tell_them_apart() -> None:
    assert format_growth(0.31, "bytes") == "+0.31 B"
    assert format_bound(-0.05, "bytes") == "\N{MINUS SIGN}0.05"
    assert format_level(1117.4, "bytes") == "1,117 B"
    assert format_level(3.46, "bytes") == "3.5 B"
    assert format_level(-0.31, "bytes") == "-0.31 B"
