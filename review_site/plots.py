"""Plots of the review site, drawn with matplotlib to SVG at build time.

Each plot is named by the sha256 of what it draws (`plots/<digest>.svg`), so an unchanged plot
is never drawn again, and the SVG is byte-stable (no date, a fixed id salt) so the same data
gives the same file. matplotlib is imported only when a plot must really be drawn.
"""

from __future__ import annotations

import io
from pathlib import Path

from contracts.digests import canonical_json_bytes, sha256_hex
from review_site.assets import drop_unreferenced

PLOTS = "plots"
COLOURS = ["#1f6feb", "#d1242f", "#2da44e", "#bf8700", "#8250df", "#57606a", "#cf222e", "#0a7e8c"]
KIND_MARKERS = {"reference": "*", "variant": "D", "defect": "X", "input": "s"}


class Plots:
    def __init__(self, out: Path):
        self.out = out
        self.used: set[str] = set()
        self.drawn = 0

    def _emit(self, kind: str, spec: dict, draw) -> str:
        rel = f"{PLOTS}/{kind}-{sha256_hex(canonical_json_bytes(spec))[:20]}.svg"
        self.used.add(rel)
        path = self.out / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(_svg(draw, spec))
            self.drawn += 1
        return rel

    def score_distribution(self, series: list[dict], calibration: list[dict],
                           threshold: float | None) -> str:
        """Rewards per configuration (one row each, every attempt a dot) and the calibration
        samples on their own row, against the pass threshold."""
        spec = {"series": series, "calibration": calibration, "threshold": threshold}
        return self._emit("scores", spec, _draw_scores)

    def campaign_bars(self, group: dict) -> str:
        """avg@k and pass@k per configuration with their bootstrap intervals."""
        return self._emit("campaign", group, _draw_campaign)

    def funnel(self, funnel: dict[str, int]) -> str:
        """Seeds left at each step of a revision's funnel (submitted ... frozen)."""
        return self._emit("funnel", {"funnel": funnel}, _draw_funnel)

    def drop_unused(self) -> int:
        return drop_unreferenced(self.out / PLOTS, self.out, self.used)


def _svg(draw, spec: dict) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"svg.hashsalt": "arkevo", "svg.fonttype": "none",
                                "font.size": 9, "axes.spines.top": False,
                                "axes.spines.right": False}):
        fig = draw(plt, spec)
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "arkevo review site"},
                    bbox_inches="tight")
        plt.close(fig)
    return buf.getvalue()


def _draw_scores(plt, spec: dict):
    rows = [(s["config"], s["rewards"]) for s in spec["series"]]
    calibration = spec["calibration"]
    labels = [name for name, _ in rows] + (["calibration"] if calibration else [])
    fig, ax = plt.subplots(figsize=(6.4, 0.55 * len(labels) + 1.1))
    for i, (_, rewards) in enumerate(rows):
        xs = [r for r in rewards if r is not None]
        ys = [i + _spread(j, len(xs)) for j in range(len(xs))]
        ax.scatter(xs, ys, s=36, color=COLOURS[i % len(COLOURS)], alpha=0.8, zorder=3)
        if xs:
            mean = sum(xs) / len(xs)
            ax.plot([mean, mean], [i - 0.3, i + 0.3], color=COLOURS[i % len(COLOURS)], lw=2)
    if calibration:
        y = len(rows)
        for kind, marker in KIND_MARKERS.items():
            xs = [c["reward"] for c in calibration if c["kind"] == kind and c["reward"] is not None]
            if xs:
                ax.scatter(xs, [y + _spread(j, len(xs)) for j in range(len(xs))], marker=marker, s=48,
                           color="#24292f", alpha=0.75, label=kind, zorder=3)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=4, frameon=False)
    if spec["threshold"] is not None:
        ax.axvline(spec["threshold"], color="#6e7781", ls="--", lw=1)
        ax.text(spec["threshold"], len(labels) - 0.45, f" pass {spec['threshold']:g}", color="#6e7781")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.set_xlim(-0.03, 1.03)
    ax.set_xlabel("reward")
    ax.grid(axis="x", alpha=0.3)
    return fig


def _spread(j: int, n: int) -> float:
    """Deterministic vertical offsets so equal rewards stay visible."""
    return 0.0 if n <= 1 else -0.25 + 0.5 * j / (n - 1)


def _draw_campaign(plt, group: dict):
    configs = group["configs"]
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 0.5 * len(configs) + 1.4), sharey=True)
    for ax, metric, title in zip(axes, ("avg_at_k", "pass_at_k"), ("avg@k", "pass@k")):
        for i, c in enumerate(configs):
            fig_ = c[metric]
            if fig_ is None or fig_["mean"] is None:
                ax.text(0.02, i, "no scored task", va="center", color="#6e7781")
                continue
            ax.barh(i, fig_["mean"], color=COLOURS[i % len(COLOURS)], alpha=0.8, height=0.6)
            if fig_.get("low") is not None:
                ax.errorbar(fig_["mean"], i, xerr=[[fig_["mean"] - fig_["low"]], [fig_["high"] - fig_["mean"]]],
                            color="#24292f", capsize=4, lw=1.2)
        ax.set_title(f"{title} (95 % bootstrap interval)")
        ax.set_xlim(0, 1.05)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(configs)), [c["config"] for c in configs])
    axes[0].invert_yaxis()
    return fig


def _draw_funnel(plt, spec: dict):
    steps = list(spec["funnel"].items())
    first = steps[0][1] or 1
    fig, ax = plt.subplots(figsize=(6.4, 0.36 * len(steps) + 0.9))
    for i, (step, n) in enumerate(steps):
        ax.barh(i, n, color=COLOURS[0], alpha=0.35 + 0.65 * n / first, height=0.6)
        ax.text(n, i, f"  {n} ({100 * n / first:.0f} %)", va="center")
    ax.set_yticks(range(len(steps)), [step for step, _ in steps])
    ax.invert_yaxis()
    ax.set_xlim(0, first * 1.25)
    ax.set_xlabel("seeds")
    ax.grid(axis="x", alpha=0.3)
    return fig
