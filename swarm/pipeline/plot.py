"""A dependency-free SVG line plot of the best score over steps."""

from __future__ import annotations

from collections.abc import Sequence

WIDTH, HEIGHT, PAD = 480, 240, 36


def score_svg(curve: Sequence[tuple[int, float | None]], lower_is_better: bool = False) -> str:
    points = [(step, value) for step, value in curve if value is not None]
    head = f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}">'
    frame = f'<rect x="{PAD}" y="{PAD / 2}" width="{WIDTH - 1.5 * PAD}" height="{HEIGHT - 1.5 * PAD}" fill="none" stroke="#999"/>'
    direction = "lower is better" if lower_is_better else "higher is better"
    title = f'<text x="{PAD}" y="14" font-size="12">best validation score per step ({direction})</text>'
    if not points:
        return f'{head}{frame}{title}<text x="{PAD + 10}" y="{HEIGHT / 2}" font-size="12">no score yet</text></svg>'
    steps = [p[0] for p in points]
    values = [p[1] for p in points]
    lo, hi = min(values), max(values)
    span_x = max(max(steps) - min(steps), 1)
    span_y = (hi - lo) or 1.0

    def xy(step: int, value: float) -> str:
        x = PAD + (step - min(steps)) / span_x * (WIDTH - 1.5 * PAD)
        y = HEIGHT - PAD - (value - lo) / span_y * (HEIGHT - 1.5 * PAD)
        return f"{x:.1f},{y:.1f}"

    line = " ".join(xy(s, v) for s, v in points)
    labels = (
        f'<text x="2" y="{HEIGHT - PAD}" font-size="10">{lo:.4g}</text>'
        f'<text x="2" y="{PAD}" font-size="10">{hi:.4g}</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" font-size="10">step {max(steps)}</text>'
    )
    return f'{head}{frame}{title}{labels}<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{line}"/></svg>'
