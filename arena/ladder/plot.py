"""A PNG of ratings over time: one panel per variant, one line per bot (openskill mu)
with its 95% band (mu +- 1.96 sigma), against the deals rated so far."""

from __future__ import annotations

from pathlib import Path

from .ratings import Z95, initial_rating


def plot_history(histories: dict[str, list[dict]], out) -> Path:
    """Write the plot of ``histories`` (variant -> `LadderStore.history` rows) to ``out``
    (a .png path in a folder that exists). Returns the path. Raises ValueError if there
    is nothing to plot, OSError (naming ``out``) if the file cannot be written."""
    from matplotlib.figure import Figure   # no pyplot: no GUI backend, no global state

    mu0, sigma0 = initial_rating()
    items = [(v, rows) for v, rows in histories.items() if rows]
    if not items:
        raise ValueError("no rated games to plot: run a ladder first (taash ladder run)")
    cols = min(len(items), 3)
    nrows = (len(items) + cols - 1) // cols
    fig = Figure(figsize=(5.2 * cols, 3.8 * nrows), layout="constrained")
    axes = fig.subplots(nrows, cols, squeeze=False)
    for i, (variant, rows) in enumerate(items):
        ax = axes[i // cols][i % cols]
        per_bot: dict[str, list[dict]] = {}
        for r in rows:
            per_bot.setdefault(r["bot"], []).append(r)
        end = rows[-1]["deals_total"]
        for bot in sorted(per_bot):
            pts = per_bot[bot]
            pts = pts + [{**pts[-1], "deals_total": end}]   # flat to the end of the ladder
            x = [0] + [p["deals_total"] for p in pts]
            mu = [mu0] + [p["mu"] for p in pts]
            sd = [sigma0] + [p["sigma"] for p in pts]
            line, = ax.plot(x, mu, label=bot, drawstyle="steps-post")
            ax.fill_between(x, [m - Z95 * s for m, s in zip(mu, sd)], [m + Z95 * s for m, s in zip(mu, sd)],
                            step="post", alpha=0.15, color=line.get_color())
        ax.set_title(f"{variant}")
        ax.set_xlabel("deals rated")
        ax.set_ylabel("rating (mu, 95% band)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="best")
    for j in range(len(items), nrows * cols):
        axes[j // cols][j % cols].set_visible(False)
    fig.suptitle("taash ladder: ratings over time (openskill)")
    out = Path(out)
    if not out.parent.is_dir():     # as `taash simulate --record`: no folder is made
        raise OSError(f"cannot write {out}: no such folder {out.parent}")
    try:
        fig.savefig(out, dpi=100)
    except OSError as e:
        raise OSError(f"cannot write {out}: {e.strerror or e}") from None
    return out
