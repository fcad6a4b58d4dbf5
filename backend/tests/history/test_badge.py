"""The SVG badge: valid XML, escaped text, widths that follow the text."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest

from tracetax.history.badge import badge_message, badge_svg, text_width

SVG = "{http://www.w3.org/2000/svg}"


def _width(svg: str) -> int:
    return int(ET.fromstring(svg).attrib["width"])


def test_the_badge_is_an_svg_with_a_title_two_fields_and_shadowed_text() -> None:
    root = ET.fromstring(badge_svg("overhead", "+4.1%", "green"))
    assert root.tag == f"{SVG}svg"
    assert root.findtext(f"{SVG}title") == "overhead: +4.1%"
    fills = [rect.attrib.get("fill") for rect in root.iter(f"{SVG}rect")]
    assert "#555" in fills and "#4c1" in fills
    texts = [text.text for text in root.iter(f"{SVG}text")]
    assert texts == ["overhead", "overhead", "+4.1%", "+4.1%"]  # shadow, then text


def test_text_is_escaped() -> None:
    svg = badge_svg("a<b & c>", 'say "<&>"', "red")
    root = ET.fromstring(svg)
    assert root.findtext(f"{SVG}title") == 'a<b & c>: say "<&>"'
    assert "<b" not in svg.replace("<title>", "")
    assert "&lt;&amp;&gt;" in svg


def test_width_grows_with_the_text() -> None:
    assert _width(badge_svg("cpu", "+4.1%", "green")) < _width(badge_svg("cpu", "+4.1% (+1.0 to +7.2)", "green"))
    assert _width(badge_svg("cpu", "ok", "green")) < _width(badge_svg("cpu per request", "ok", "green"))
    assert text_width("iiii") < text_width("mmmm")
    assert text_width("") == 0


def test_colours_are_named_or_hex_and_anything_else_is_refused() -> None:
    for name, hex_value in (("green", "#4c1"), ("red", "#e05d44"), ("grey", "#9f9f9f"), ("orange", "#fe7d37")):
        assert f'fill="{hex_value}"' in badge_svg("a", "b", name)
    assert 'fill="#123abc"' in badge_svg("a", "b", "#123abc")
    with pytest.raises(ValueError, match="badge color 'purple'"):
        badge_svg("a", "b", "purple")
    with pytest.raises(ValueError, match="badge color"):
        badge_svg("a", "b", '#12"/><script')


def test_the_badge_text_shows_the_interval_or_unknown() -> None:
    assert badge_message(3.1, 1.1, 5.1, "pct") == "+3.1% ±2.0"
    assert badge_message(None, None, None, "pct") == "unknown"
    assert badge_message(1204.0, 1190.0, 1210.0, "bytes") == "1,204 B ±10"
