"""`taash ladder report`: the standings, the ratings chart and the head-to-head of every
ladder as one static HTML file (CSS inlined, the chart an inline SVG): it opens without
a server or network."""

from __future__ import annotations

from pathlib import Path

from .app import environment
from .data import Site, chart_svg

HERE = Path(__file__).parent


def write_report(site: Site, out, variants=None) -> Path:
    """Write the report of ``variants`` (default: every ladder of ``site``) to ``out``.
    Returns the path. Raises ValueError when there is no ladder, OSError on writing."""
    variants = variants or site.variants()
    if not variants:
        raise ValueError("no ladder to report: run one first (taash ladder run)")
    env = environment()
    ladders = [{"variant": v, "standings": site.standings(v), "h2h": site.head_to_head(v),
                "chart": chart_svg(site.ladder.history(v))} for v in variants]
    html = env.get_template("report.html").render(
        ladders=ladders, static=True, inline_css=(HERE / "static" / "style.css").read_text())
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html)
    return out
