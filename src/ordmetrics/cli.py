"""The ``ordmetrics`` command line.

Subcommands:

* ``ordmetrics demo``: score the bundled example (diamonds ``cut`` grades, out-of-fold
  predictions of two models) with every registered scoring rule and print a table.
* ``ordmetrics list``: the registered metrics with their direction, range and properties.
* ``ordmetrics index``: the same as a Markdown table (``docs/metrics.md``).

Exit codes: 0 on success, 2 on bad input (a one-line message, no traceback).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence

from . import __version__
from ._registry import PROPERTY_NAMES, get_metric, list_metrics


def _fmt_range(lo: float, hi: float) -> str:
    def f(x: float) -> str:
        return "inf" if math.isinf(x) else f"{x:g}"

    return f"[{f(lo)}, {f(hi)}]"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            str(c).rjust(w) if i in right else str(c).ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def _yes(flag: bool) -> str:
    return "yes" if flag else "-"


def cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for name in list_metrics(args.kind):
        spec = get_metric(name)
        props = [_yes(spec.properties.get(p, False)) for p in PROPERTY_NAMES]
        rows.append([name, spec.kind, spec.direction, _fmt_range(*spec.range), *props])
    header = ["metric", "kind", "direction", "range", *PROPERTY_NAMES]
    print(_table(header, rows, right=set()))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .datasets import CUT_LABELS, MODELS, load_diamonds_cut

    data = {m: load_diamonds_cut(m) for m in MODELS}
    n = data[MODELS[0]].y_proba.shape[0]
    print(f"ordmetrics {__version__} demo")
    print(
        f"Diamonds `cut` grades ({' < '.join(CUT_LABELS)}): {n:,} out-of-fold predictions of\n"
        "two models, hgb (gradient-boosted trees) and logit (multinomial logistic regression).\n"
        "Data: ggplot2 `diamonds` (MIT licence). Lower is better for every scoring rule.\n"
    )
    rows = []
    total_time = 0.0
    for name in list_metrics("scoring_rule"):
        spec = get_metric(name)
        values = []
        for m in MODELS:
            ex = data[m]
            t0 = time.perf_counter()
            values.append(spec(ex.y_true, ex.y_proba, labels=ex.labels))
            total_time += time.perf_counter() - t0
        best = MODELS[values.index(min(values))]
        props = ", ".join(p for p in PROPERTY_NAMES if spec.properties[p]) or "-"
        rows.append([name, *(f"{v:.6f}" for v in values), best, _fmt_range(*spec.range), props])
    header = ["rule", *MODELS, "better", "range", "properties"]
    print(_table(header, rows, right={1, 2}))
    print(
        f"\n{len(rows)} rules x {len(MODELS)} models scored in {total_time * 1e3:.0f} ms "
        "(first run includes compiling the kernels)."
    )
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    from ._index import metric_index

    print(metric_index(), end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ordmetrics",
        description="Evaluate probabilistic predictions of ordinal classifiers.",
    )
    parser.add_argument("--version", action="version", version=f"ordmetrics {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_demo = sub.add_parser("demo", help="score the bundled example data and print a table")
    p_demo.set_defaults(func=cmd_demo)
    p_list = sub.add_parser("list", help="list the registered metrics and their properties")
    p_list.add_argument("--kind", default=None, help="only metrics of this kind")
    p_list.set_defaults(func=cmd_list)
    p_index = sub.add_parser("index", help="print the Markdown metric index (docs/metrics.md)")
    p_index.set_defaults(func=cmd_index)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except (ValueError, TypeError, OSError) as exc:
        print(f"ordmetrics: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
