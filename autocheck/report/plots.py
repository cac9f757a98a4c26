"""Two pictures of a run, drawn with matplotlib (no pyplot, no global state): the failure rate per
capability and model with its 95% Wilson interval, and seed vs expansion (or perturbation) failure rates
side by side, the paper's RQ1 picture. Each is written as a PNG file and returned as SVG text for the page.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from .summary import capabilities, derived, interval, short_name

COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7")
RC = {"svg.fonttype": "none", "svg.hashsalt": "autocheck", "font.size": 9}


def _plain(text: str) -> str:
    """Text as matplotlib draws it literally (a '$' would start mathtext)."""
    return text.replace("$", r"\$")


def _figure(n_rows: int, n_bars: int):
    from matplotlib.figure import Figure

    height = 1.2 + n_rows * max(0.28, 0.16 * n_bars)
    return Figure(figsize=(8.5, height), layout="constrained")


def failure_rate_figure(results: dict[str, Any]):
    """Horizontal bars per capability, one per model: headline failure rate with its interval."""
    models, caps = list(results["models"]), capabilities(results)
    fig = _figure(len(caps), len(models))
    ax = fig.add_subplot()
    step = 0.8 / max(1, len(models))
    for m, name in enumerate(models):
        ys, rates, low, high = [], [], [], []
        for i, cap in enumerate(caps):
            c = results["models"][name]["capabilities"].get(cap)
            if c is None or c["failure_rate"] is None:
                continue
            lo, hi = interval(c) or (c["failure_rate"], c["failure_rate"])
            ys.append(i - 0.4 + step * (m + 0.5))
            rates.append(100 * c["failure_rate"])
            low.append(max(0.0, 100 * (c["failure_rate"] - lo)))  # the rate is rounded to 6 digits
            high.append(max(0.0, 100 * (hi - c["failure_rate"])))
        color = COLORS[m % len(COLORS)]
        ax.barh(ys, rates, height=step * 0.9, color=color, label=_plain(short_name(name)))
        ax.errorbar(rates, ys, xerr=[low, high], fmt="none", ecolor="#333", elinewidth=0.8, capsize=2)
    _axes(ax, caps, "failure rate (%), 95% Wilson interval")
    if len(models) > 1:
        _legend(fig, len(models))
    return fig


def seed_vs_expansion_figure(results: dict[str, Any]):
    """Per capability and model, the failure rate of seed cases beside that of their expansions (or
    perturbations): solid bars seeds, hatched bars derived cases."""
    models, caps = list(results["models"]), capabilities(results)
    fig = _figure(len(caps), 2 * len(models))
    ax = fig.add_subplot()
    step = 0.8 / max(1, 2 * len(models))
    for m, name in enumerate(models):
        color = COLORS[m % len(COLORS)]
        for part in (0, 1):
            ys, rates = [], []
            for i, cap in enumerate(caps):
                c = results["models"][name]["capabilities"].get(cap)
                tally = None if c is None else c["seeds"] if part == 0 else derived(c)
                if tally is None or tally["failure_rate"] is None:
                    continue
                ys.append(i - 0.4 + step * (2 * m + part + 0.5))
                rates.append(100 * tally["failure_rate"])
            label = f"{short_name(name)}: {'seeds' if part == 0 else 'expansions / perturbations'}"
            ax.barh(
                ys,
                rates,
                height=step * 0.9,
                color=color if part == 0 else "white",
                edgecolor=color,
                hatch=None if part == 0 else "///",
                label=_plain(label),
            )
    _axes(ax, caps, "failure rate (%): seed cases vs their expansions or perturbations")
    _legend(fig, 2 * len(models))
    return fig


def _legend(fig: Any, entries: int) -> None:
    """Above the axes, never over a bar (inside, "lower right" covered the last capability's bars)."""
    fig.legend(loc="outside upper center", ncols=min(entries, 2), fontsize=8, frameon=False)


def _axes(ax, caps: list[str], xlabel: str) -> None:
    ax.set_yticks(range(len(caps)), [_plain(c) for c in caps])
    ax.set_ylim(len(caps) - 0.5, -0.5)
    ax.set_xlim(0, 100)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", color="#ddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _svg(fig) -> str:
    from matplotlib import rc_context

    buffer = io.StringIO()
    with rc_context(RC):  # type: ignore[arg-type]  # its stubs want the Literal key type of its newest rc keys
        fig.savefig(
            buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None}
        )
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # no XML declaration or DOCTYPE inside the page


FIGURES = {"failure_rates": failure_rate_figure, "seed_vs_expansion": seed_vs_expansion_figure}


def render(results: dict[str, Any], png_stem: Path | None, keys: list[str] | None = None) -> dict[str, str]:
    """{key: svg} for each figure in ``keys`` (default all: "failure_rates", "seed_vs_expansion"); with
    ``png_stem``, also ``<stem>-<key>.png``."""
    from matplotlib import rc_context

    out = {}
    for key in keys or list(FIGURES):
        fig = FIGURES[key](results)
        if png_stem is not None:
            with rc_context(RC):  # type: ignore[arg-type]  # as in _svg
                fig.savefig(png_path(png_stem, key), format="png", dpi=110, metadata={"Software": None})
        out[key] = _svg(fig)
    return out


def png_path(stem: Path, key: str) -> Path:
    return stem.with_name(f"{stem.name}-{key.replace('_', '-')}.png")
