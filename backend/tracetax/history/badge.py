"""A flat, shields.io-style SVG badge: "label | message", the message on a coloured field.

Widths come from the text, measured with a per-character table of approximate advance
widths of Verdana at 11px (the font shields uses), rounded to 0.1px: not the font's exact
metrics, but close enough that the text fits its field within the padding (a few px off over
a long text at worst). A character outside the table counts as a digit's width (7.0px), a
wide East Asian one as 11px. Each side is its text's width plus
5px of padding either side. The text is drawn twice, a 1px-lower shadow at 30% black under
the white text, in a font stack that falls back to DejaVu Sans, whose widths are close.
"""

from __future__ import annotations

import math
import unicodedata
from xml.sax.saxutils import escape, quoteattr

from tracetax.history.metrics import HistoryUnit, format_bound, format_level

HEIGHT = 20
PADDING = 5
LABEL_COLOR = "#555"
COLORS: dict[str, str] = {
    "green": "#4c1",
    "red": "#e05d44",
    "orange": "#fe7d37",
    "grey": "#9f9f9f",
    "gray": "#9f9f9f",
    "yellow": "#dfb317",
    "blue": "#007ec6",
}
DEFAULT_WIDTH = 7.0
WIDE_WIDTH = 11.0

# Verdana 11px advance widths, in px.
_WIDTHS: dict[str, float] = {
    " ": 3.9, "!": 4.3, '"': 5.1, "#": 9.2, "$": 7.0, "%": 11.9, "&": 8.0, "'": 3.0, "(": 5.0, ")": 5.0,
    "*": 7.0, "+": 9.2, ",": 4.0, "-": 5.0, ".": 4.0, "/": 5.0, ":": 5.0, ";": 5.0, "<": 9.2, "=": 9.2,
    ">": 9.2, "?": 6.0, "@": 11.0, "[": 5.0, "\\": 5.0, "]": 5.0, "^": 9.2, "_": 7.0, "`": 7.0, "{": 7.0,
    "|": 5.0, "}": 7.0, "~": 9.2, "µ": 7.1, "±": 9.2, "\N{MULTIPLICATION SIGN}": 9.2, "\N{MINUS SIGN}": 9.2, "Δ": 7.5,
    "A": 7.5, "B": 7.5, "C": 7.7, "D": 8.5, "E": 7.0, "F": 6.3, "G": 8.5, "H": 8.3, "I": 4.6, "J": 5.0,
    "K": 7.6, "L": 6.2, "M": 9.1, "N": 8.2, "O": 8.7, "P": 6.7, "Q": 8.7, "R": 7.7, "S": 7.5, "T": 6.7,
    "U": 8.2, "V": 7.5, "W": 10.9, "X": 7.5, "Y": 6.7, "Z": 7.5,
    "a": 6.6, "b": 6.9, "c": 5.7, "d": 6.9, "e": 6.6, "f": 3.9, "g": 6.9, "h": 7.0, "i": 3.0, "j": 3.8,
    "k": 6.4, "l": 3.0, "m": 10.7, "n": 7.0, "o": 6.7, "p": 6.9, "q": 6.9, "r": 4.7, "s": 5.7, "t": 4.3,
    "u": 7.0, "v": 6.4, "w": 8.9, "x": 6.4, "y": 6.4, "z": 5.6,
}  # fmt: skip
_WIDTHS.update(dict.fromkeys("0123456789", 7.0))


def text_width(text: str) -> float:
    """The text's width in px at Verdana 11px (see the module's docstring)."""
    return sum(_char_width(char) for char in text)


def _char_width(char: str) -> float:
    if char in _WIDTHS:
        return _WIDTHS[char]
    return WIDE_WIDTH if unicodedata.east_asian_width(char) in ("W", "F") else DEFAULT_WIDTH


def _color(color: str) -> str:
    if color in COLORS:
        return COLORS[color]
    digits = color.removeprefix("#")
    if color.startswith("#") and len(digits) in (3, 6) and all(c in "0123456789abcdefABCDEF" for c in digits):
        return color
    raise ValueError(f"badge color {color!r} is not one of {', '.join(COLORS)} nor a #rgb or #rrggbb hex colour")


def _texts(text: str, centre: float) -> str:
    """The text and its 1px shadow, centred at `centre`."""
    body = escape(text)
    return (
        f'<text x="{centre:.1f}" y="15" fill="#010101" fill-opacity=".3" aria-hidden="true">{body}</text>'
        f'<text x="{centre:.1f}" y="14">{body}</text>'
    )


def badge_svg(label: str, message: str, color: str) -> str:
    """A flat badge: `label` on grey, `message` on `color` (a name in COLORS or a hex colour)."""
    fill = _color(color)
    label_width = math.ceil(text_width(label)) + 2 * PADDING
    message_width = math.ceil(text_width(message)) + 2 * PADDING
    width = label_width + message_width
    title = escape(f"{label}: {message}")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{HEIGHT}" role="img" '
        f"aria-label={quoteattr(f'{label}: {message}')}>"
        f"<title>{title}</title>"
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>'
        '<stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{width}" height="{HEIGHT}" rx="3" fill="#fff"/></clipPath>'
        '<g clip-path="url(#r)">'
        f'<rect width="{label_width}" height="{HEIGHT}" fill="{LABEL_COLOR}"/>'
        f'<rect x="{label_width}" width="{message_width}" height="{HEIGHT}" fill="{fill}"/>'
        f'<rect width="{width}" height="{HEIGHT}" fill="url(#s)"/>'
        "</g>"
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" '
        'text-rendering="geometricPrecision" font-size="11">'
        f"{_texts(label, label_width / 2)}{_texts(message, label_width + message_width / 2)}"
        "</g></svg>"
    )


__all__ = ["COLORS", "badge_svg", "text_width"]


def badge_message(estimate: float | None, low: float | None, high: float | None, unit: HistoryUnit) -> str:
    """ "+3.1% ±2.0": the latest overhead and its interval's half-width; "unknown" when not measured."""
    if estimate is None:
        return "unknown"
    text = format_level(estimate, unit)
    if low is None or high is None or high <= low:
        return text
    return f"{text} ±{format_bound((high - low) / 2, unit).lstrip('+')}"
