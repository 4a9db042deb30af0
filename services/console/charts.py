"""Charts drawn on the server as SVG: no JavaScript, no charting library, no CDN.

Each chart has a title with its unit, a y axis with round-number ticks and
labels, time labels on the x axis, and a legend; colours are chosen to stay apart
for the usual colour-vision deficiencies (Okabe-Ito palette).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
WIDTH, HEIGHT = 720, 280
PHONE_WIDTH = 360
"""A phone's chart is drawn for its width, so its labels are shown at their own size, not shrunk
to half of it (the console shows one or the other by the screen's width)."""
LEFT, RIGHT, TOP, BOTTOM = 64, 40, 36, 56
PHONE_RIGHT = 16
LABEL_SLOT = 77
"""Plot width one x label needs ("11-30 00:00" at the ticks' size)."""
LEGEND_ROW = 16
TITLE_CHAR, TITLE_LINE = 7.8, 18
"""The title's width per character (14 px, bold) and its line height, for wrapping it."""


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float | None]


@dataclass(frozen=True)
class Chart:
    title: str
    unit: str
    """Shown on the y axis, e.g. "messages", "ms", "%", "USD"."""
    labels: Sequence[datetime]
    series: Sequence[Series]
    stacked: bool = False
    """Stacked bars (counts that add up) instead of lines."""
    label_format: str = "%m-%d %H:%M"


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """0 and round steps (1, 2, 2.5, 5 x 10^k) up to at least `top`."""
    if top <= 0 or not math.isfinite(top):
        return [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    ticks = [0.0]
    while ticks[-1] < top - 1e-12:
        ticks.append(round(ticks[-1] + step, 12))
    return ticks


def _number(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:.4g}"
    return f"{value:.2g}"


def render_for_screens(chart: Chart) -> str:
    """The chart drawn twice: for a wide screen and for a phone's (CSS shows the one that fits)."""
    return render(chart) + render(chart, width=PHONE_WIDTH)


def _legend(chart: Chart, width: int, right: int) -> list[tuple[int, int]]:
    """Where each series' legend entry starts: (x, row), wrapping onto more rows when narrow."""
    places, legend_x, row = [], LEFT, 0
    for series in chart.series:
        size = 24 + 7 * len(series.name)
        if legend_x > LEFT and legend_x + size > width - right:
            legend_x, row = LEFT, row + 1
        places.append((legend_x, row))
        legend_x += size
    return places


def render(chart: Chart, *, width: int = WIDTH) -> str:
    right = RIGHT if width >= WIDTH else PHONE_RIGHT
    legend = _legend(chart, width, right)
    rows = max((row for _, row in legend), default=0)
    title_x = LEFT if width >= WIDTH else 8
    title = textwrap.wrap(chart.title, max(12, int((width - title_x - 8) / TITLE_CHAR))) or [""]
    shift = (len(title) - 1) * TITLE_LINE  # a title of more lines moves the plot down by the extra ones
    height = HEIGHT + rows * LEGEND_ROW + shift
    plot_w, plot_h = width - LEFT - right, HEIGHT - TOP - BOTTOM
    n = len(chart.labels)
    screen = "wide" if width >= WIDTH else "phone"
    parts = [
        f'<svg class="chart {screen}" viewBox="0 0 {width} {height}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg" aria-label="{escape(chart.title)}">',
        f"<title>{escape(chart.title)}</title>",
        *(
            f'<text x="{title_x}" y="{20 + index * TITLE_LINE}" class="chart-title">{escape(line)}</text>'
            for index, line in enumerate(title)
        ),
        f'<g transform="translate(0 {shift})">',
    ]
    if chart.stacked:
        totals = [sum(s.values[i] or 0 for s in chart.series) for i in range(n)]
        top = max(totals, default=0)
    else:
        top = max((v for s in chart.series for v in s.values if v is not None), default=0)
    ticks = nice_ticks(top)
    y_max = ticks[-1] or 1.0

    def y(value: float) -> float:
        return TOP + plot_h - value / y_max * plot_h

    for tick in ticks:
        parts.append(
            f'<line x1="{LEFT}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" class="grid"/>'
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" class="tick">'
            f"{_number(tick)}</text>"
        )
    parts.append(
        f'<text transform="translate(14 {TOP + plot_h / 2:.0f}) rotate(-90)" text-anchor="middle" '
        f'class="axis-label">{escape(chart.unit)}</text>'
    )
    parts.append(
        f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}" class="axis"/>'
        f'<line x1="{LEFT}" x2="{width - right}" y1="{TOP + plot_h}" y2="{TOP + plot_h}" class="axis"/>'
    )
    if n == 0 or top == 0:
        parts.append(
            f'<text x="{LEFT + plot_w / 2:.0f}" y="{TOP + plot_h / 2:.0f}" text-anchor="middle" '
            'class="empty">no data in this period</text>'
        )
    slot = plot_w / max(n, 1)

    def x(index: int) -> float:
        return LEFT + slot * (index + 0.5)

    if n and top:
        parts.extend(_bars(chart, slot, x, y) if chart.stacked else _lines(chart, x, y))
    every = max(1, math.ceil(n / max(2, plot_w // LABEL_SLOT)))
    for index in range(0, n, every):
        parts.append(
            f'<text x="{x(index):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" class="tick">'
            f"{escape(chart.labels[index].strftime(chart.label_format))}</text>"
        )
    for index, (series, (legend_x, row)) in enumerate(zip(chart.series, legend, strict=True)):
        colour = PALETTE[index % len(PALETTE)]
        bottom = HEIGHT + row * LEGEND_ROW
        parts.append(
            f'<rect x="{legend_x}" y="{bottom - 18}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{legend_x + 14}" y="{bottom - 9}" class="legend">{escape(series.name)}</text>'
        )
    parts.append("</g></svg>")
    return "".join(parts)


def _bars(chart: Chart, slot: float, x: Callable[[int], float], y: Callable[[float], float]) -> list[str]:
    parts = []
    width = max(1.0, slot * 0.8)
    for index in range(len(chart.labels)):
        base = 0.0
        for number, series in enumerate(chart.series):
            value = series.values[index] or 0
            if value <= 0:
                continue
            colour = PALETTE[number % len(PALETTE)]
            parts.append(
                f'<rect x="{x(index) - width / 2:.1f}" y="{y(base + value):.1f}" width="{width:.1f}" '
                f'height="{y(base) - y(base + value):.1f}" fill="{colour}">'
                f"<title>{escape(series.name)}: {_number(value)} {escape(chart.unit)}</title></rect>"
            )
            base += value
    return parts


def _lines(chart: Chart, x: Callable[[int], float], y: Callable[[float], float]) -> list[str]:
    parts = []
    for number, series in enumerate(chart.series):
        colour = PALETTE[number % len(PALETTE)]
        points = [(x(i), y(v), v) for i, v in enumerate(series.values) if v is not None]
        if len(points) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py, _ in points)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for px, py, value in points:
            parts.append(
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}">'
                f"<title>{escape(series.name)}: {_number(value)} {escape(chart.unit)}</title></circle>"
            )
    return parts
