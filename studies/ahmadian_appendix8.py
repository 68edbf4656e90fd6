"""Monte Carlo of Ahmadian, Ghatee and Wahlstrom's Appendix 8 (the Brier score is not superior).

What the paper estimates (Appendix 8.2 and 8.3, Figures 4-5): draw a forecast ``x`` from
psi (its arg-max is the true class ``i``; its "hot value" is ``alpha = x_i``) and a forecast
``q`` from xi (its arg-max is another class), and count how often the Brier score of the wrong
forecast is worse, ``S_BS(q, i) > S_BS(x, i)``:

* 8.2, pairs with ``q_i < alpha`` (``q_i = alpha - beta``, ``beta > 0``): "almost 99.996%";
* 8.3, pairs with ``q_i > alpha`` (``q_i = alpha + beta``): "roughly 63%".

The text says only that x, q, alpha, beta and the number of classes c "are randomly generated
from a normal distribution"; it names no distribution for the probability vectors and no c.
This script estimates both probabilities for several plausible samplings of the two forecasts
and several K, and reports which of them reproduce the printed values.

Estimator: ``n_batches`` independent batches, each with ``n`` draws from psi and ``n`` from xi
(rejection sampling from the base distribution, class 0 true: the problem is symmetric in the
classes). Within a batch every (x, q) pair is compared (an unbiased U-statistic, ``n**2``
pairs); the estimate pools the batches and its standard error is the standard deviation of the
batch estimates over ``sqrt(n_batches)`` (batch means: the batches are independent). Both
printed values are then compared with the estimate as z-scores.

Run: ``python studies/ahmadian_appendix8.py`` (``--quick`` for a smoke run). Writes
``appendix8.md`` and ``appendix8.csv`` to ``--out-dir`` (default ``studies/results``).
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import ordmetrics as om

PAPER_LOWER = 0.99996  # Appendix 8.2, q_i < alpha
PAPER_HIGHER = 0.63  # Appendix 8.3, q_i > alpha ("roughly 63%")
Sampler = Callable[[np.random.Generator, int, int], np.ndarray]


def _normalise(a: np.ndarray) -> np.ndarray:
    return a / a.sum(axis=1, keepdims=True)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return _normalise(e)


def _dirichlet(a: float) -> Sampler:
    return lambda rng, n, k: rng.dirichlet(np.full(k, a), size=n)


SCHEMES: dict[str, Sampler] = {
    "Dirichlet(1) (uniform on the simplex)": _dirichlet(1.0),
    "Dirichlet(0.5)": _dirichlet(0.5),
    "Dirichlet(2)": _dirichlet(2.0),
    "normalised U(0,1)": lambda rng, n, k: _normalise(rng.random((n, k))),
    "normalised abs(N(0,1))": lambda rng, n, k: _normalise(np.abs(rng.normal(size=(n, k)))),
    "softmax of N(0,1)": lambda rng, n, k: _softmax(rng.normal(size=(n, k))),
    "softmax of N(0,2^2)": lambda rng, n, k: _softmax(2.0 * rng.normal(size=(n, k))),
}
KS = (3, 4, 5, 6, 8, 10, 13)


def brier_true0(p: np.ndarray) -> np.ndarray:
    """Eq. 7 of the paper with class 0 true: sum_k p_k^2 + (1 - p_0)^2 - p_0^2."""
    return (p * p).sum(axis=1) - 2.0 * p[:, 0] + 1.0


def draw(rng: np.random.Generator, sampler: Sampler, k: int, n: int, correct: bool) -> np.ndarray:
    """``n`` draws of ``sampler`` whose arg-max is class 0 (psi) or is not (xi)."""
    out, have = [], 0
    while have < n:
        p = sampler(rng, max(2 * n, 1000) * (k if correct else 2), k)
        keep = (p.argmax(axis=1) == 0) == correct
        out.append(p[keep])
        have += int(keep.sum())
    return np.concatenate(out)[:n]


@dataclass
class Estimate:
    """Pooled estimate, batch-means standard error and pair counts of one condition."""

    p: float
    se: float
    pairs: int
    violations: int  # pairs where the wrong forecast is *not* worse

    def z(self, target: float) -> float:
        if self.se == 0.0:
            return 0.0 if self.p == target else math.copysign(math.inf, self.p - target)
        return (self.p - target) / self.se


def estimate(
    sampler: Sampler, k: int, n: int, n_batches: int, seed: int
) -> tuple[Estimate, Estimate]:
    """P(S_BS(q) > S_BS(x)) for q_i < x_i and for q_i > x_i."""
    rng = np.random.default_rng(seed)
    hits = np.zeros((n_batches, 2))
    counts = np.zeros((n_batches, 2))
    for b in range(n_batches):
        x = draw(rng, sampler, k, n, correct=True)
        q = draw(rng, sampler, k, n, correct=False)
        bx, bq = brier_true0(x), brier_true0(q)
        lower = q[None, :, 0] < x[:, None, 0]  # rows: x, columns: q
        worse = bq[None, :] > bx[:, None]
        counts[b] = lower.sum(), (~lower).sum()
        hits[b] = (lower & worse).sum(), (~lower & worse).sum()
    results = []
    for j in range(2):
        ratios = hits[:, j] / np.maximum(counts[:, j], 1)
        tot = counts[:, j].sum()
        p = hits[:, j].sum() / tot
        se = float(ratios.std(ddof=1) / math.sqrt(n_batches)) if n_batches > 1 else math.nan
        results.append(Estimate(p, se, int(tot), int(tot - hits[:, j].sum())))
    return results[0], results[1]


def check_brier(seed: int) -> None:
    """The closed form used here agrees with ``ordmetrics.brier`` (Eq. 7, summed over classes)."""
    rng = np.random.default_rng(seed)
    for k in (3, 5, 13):
        p = rng.dirichlet(np.ones(k), size=200)
        ref = om.brier(np.zeros(200, dtype=int), p, labels=range(k), reduction="none")
        if not np.allclose(brier_true0(p), ref, rtol=0, atol=1e-12):
            raise AssertionError(f"Brier closed form disagrees with ordmetrics.brier for K={k}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="draws from psi and xi per batch")
    parser.add_argument("--batches", type=int, default=20, help="independent batches (20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results")
    parser.add_argument("--quick", action="store_true", help="smoke run: 300 draws, 4 batches")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    n, n_batches = (300, 4) if args.quick else (args.n, args.batches)
    ks = (3, 5, 10) if args.quick else KS
    check_brier(args.seed)
    t0 = time.perf_counter()
    rows = []
    for s, (name, sampler) in enumerate(SCHEMES.items()):
        for k in ks:
            lo, hi = estimate(sampler, k, n, n_batches, seed=args.seed + 1000 * s + k)
            rows.append((name, k, lo, hi))
    elapsed = time.perf_counter() - t0

    header = (
        "| sampling of x and q | K | P(worse), q_i < alpha (paper 99.996%) | z | "
        "P(worse), q_i > alpha (paper 63%) | z | pairs (q_i > alpha) |"
    )
    lines = [
        "# Ahmadian et al., Appendix 8: Monte Carlo of the Brier score",
        "",
        f"{n_batches} independent batches of {n} draws from psi and {n} from xi per cell; "
        "all pairs of a batch compared; estimate +/- batch-means standard error; z = "
        "(estimate - printed value) / SE.",
        "",
        header,
        "|---|---|---|---|---|---|---|",
    ]
    table_rows = []
    for name, k, lo, hi in rows:
        lines.append(
            f"| {name} | {k} | {100 * lo.p:.4f}% +/- {100 * lo.se:.4f} ({lo.violations} of "
            f"{lo.pairs} pairs not worse) | {lo.z(PAPER_LOWER):+.1f} | "
            f"{100 * hi.p:.2f}% +/- {100 * hi.se:.2f} | {hi.z(PAPER_HIGHER):+.1f} | {hi.pairs} |"
        )
        table_rows.append(
            {
                "sampling": name,
                "K": k,
                "p_lower": lo.p,
                "se_lower": lo.se,
                "pairs_lower": lo.pairs,
                "violations_lower": lo.violations,
                "p_higher": hi.p,
                "se_higher": hi.se,
                "pairs_higher": hi.pairs,
            }
        )
    both = [
        (name, k, lo, hi)
        for name, k, lo, hi in rows
        if abs(hi.z(PAPER_HIGHER)) < 2.0 and abs(lo.z(PAPER_LOWER)) < 2.0
    ]
    higher_only = [(name, k) for name, k, _lo, hi in rows if abs(hi.z(PAPER_HIGHER)) < 2.0]
    lines += ["", "Within 2 SE of 63% (Appendix 8.3): "]
    lines += [f"- {name}, K = {k}" for name, k in higher_only] or ["- none"]
    lines += ["", "Within 2 SE of both 99.996% and 63%:"]
    lines += [
        f"- {name}, K = {k}: {100 * lo.p:.4f}% and {100 * hi.p:.2f}%" for name, k, lo, hi in both
    ] or ["- none"]
    text = "\n".join(lines) + "\n"
    print(text)
    print(f"{len(rows)} cells in {elapsed:.1f} s")

    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "appendix8.md").write_text(text)
    with open(args.out_dir / "appendix8.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(table_rows[0]))
        writer.writeheader()
        writer.writerows(table_rows)
    print(f"tables written to {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
