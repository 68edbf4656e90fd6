"""Regenerate the packaged example data ``src/ordmetrics/_data/diamonds_cut_oof.csv.gz``.

The file holds out-of-fold predicted class probabilities of two scikit-learn models for the
ordinal ``cut`` grade (Fair < Good < Very Good < Premium < Ideal) of the 53,940 diamonds of the
ggplot2 ``diamonds`` data set (MIT licence, ggplot2 authors).

Usage, from the repository root (needs pandas and scikit-learn)::

    python scripts/make_example_data.py path/to/diamonds.csv [--output FILE]

``diamonds.csv`` is the ggplot2 data set as CSV with a header line (columns carat, cut, color,
clarity, depth, table, price, x, y, z), e.g. ``data-raw/diamonds.csv`` of the ggplot2
repository (https://github.com/tidyverse/ggplot2). The output defaults to the packaged file;
``--output`` writes elsewhere, e.g. to compare a regenerated file with the packaged one::

    python scripts/make_example_data.py diamonds.csv --output /tmp/oof.csv.gz
    cmp /tmp/oof.csv.gz src/ordmetrics/_data/diamonds_cut_oof.csv.gz

Features: carat, color (D=0 .. J=6), clarity (I1=0 .. IF=7), depth, table, price, x, y, z.
Target: the index of ``cut`` in the order above. Five-fold ``StratifiedKFold(shuffle=True,
random_state=0)``; every row is predicted by the model fitted on the other four folds.

Models
------
``hgb``
    ``HistGradientBoostingClassifier(random_state=0)`` with default settings.
``logit``
    ``Pipeline(StandardScaler(), LogisticRegression(max_iter=2000))``, a multinomial logistic
    regression.

Rounding
--------
Probabilities are stored with 6 decimals, and every stored row sums to exactly 1 in decimal.
Each row is converted to integer micro-units (1e-6) by the largest-remainder method: every entry
is rounded down, entries that would be 0 are raised to 1 micro-unit (so no stored probability is
0), and the row is brought to exactly 1,000,000 micro-units by adding one unit to the entries with
the largest remainders or, when the raised entries overshoot, by taking one unit at a time from
the largest entry. A stored value therefore differs from the model output by less than 1e-6,
except for the largest entry of a row in which some entries were raised to 1e-6, which may move
by a few micro-units (at most 4e-6 with five classes). The script prints the largest difference
it made.

The output is gzip-compressed with a zero timestamp, so the file is byte-for-byte reproducible
for the same library versions.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from sklearn.base import ClassifierMixin, clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

REPO_ROOT = Path(__file__).resolve().parents[1]
OUTPUT = REPO_ROOT / "src" / "ordmetrics" / "_data" / "diamonds_cut_oof.csv.gz"

CUT_ORDER = ("Fair", "Good", "Very Good", "Premium", "Ideal")
COLOR_ORDER = ("D", "E", "F", "G", "H", "I", "J")
CLARITY_ORDER = ("I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF")
FEATURES = ("carat", "color", "clarity", "depth", "table", "price", "x", "y", "z")
N_SPLITS = 5
SEED = 0
MICRO = 1_000_000


def build_models() -> dict[str, ClassifierMixin]:
    """Return the two example models, keyed by the prefix of their columns.

    Returns
    -------
    dict of str to estimator
        ``"hgb"`` and ``"logit"``, unfitted.
    """
    return {
        "hgb": HistGradientBoostingClassifier(random_state=SEED),
        "logit": Pipeline(
            [
                ("scale", StandardScaler()),
                ("logit", LogisticRegression(max_iter=2000)),
            ]
        ),
    }


def _encode(values: pd.Series, order: tuple[str, ...], name: str) -> np.ndarray:
    """Map the strings in ``values`` to their index in ``order``."""
    codes = pd.Categorical(values, categories=list(order), ordered=True).codes
    if (codes < 0).any():
        unknown = sorted(set(values[codes < 0]))
        raise ValueError(f"column {name!r} holds values outside {order}: {unknown}")
    return codes.astype(np.int64)


def load_source(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Read diamonds.csv and return the feature matrix and the class index of ``cut``.

    Parameters
    ----------
    path : Path
        Path to ``diamonds.csv``.

    Returns
    -------
    X : ndarray of shape (n_samples, 9)
        The features, in the order of ``FEATURES``.
    y : ndarray of shape (n_samples,)
        The index of ``cut`` in ``CUT_ORDER``.
    """
    df = pd.read_csv(path)
    columns = {
        "carat": df["carat"].to_numpy(np.float64),
        "color": _encode(df["color"], COLOR_ORDER, "color"),
        "clarity": _encode(df["clarity"], CLARITY_ORDER, "clarity"),
    }
    for name in ("depth", "table", "price", "x", "y", "z"):
        columns[name] = df[name].to_numpy(np.float64)
    X = np.column_stack([columns[name] for name in FEATURES]).astype(np.float64)
    y = _encode(df["cut"], CUT_ORDER, "cut")
    return X, y


def out_of_fold(
    model: ClassifierMixin, X: np.ndarray, y: np.ndarray, folds: np.ndarray
) -> np.ndarray:
    """Return out-of-fold ``predict_proba`` for every row.

    Parameters
    ----------
    model : estimator
        An unfitted classifier; a fresh clone is fitted per fold.
    X : ndarray of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Class indices ``0 .. n_classes - 1``.
    folds : ndarray of shape (n_samples,)
        The fold of every row.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        Row ``i`` comes from the model fitted on all folds but ``folds[i]``.
    """
    n_classes = int(y.max()) + 1
    proba = np.full((len(y), n_classes), np.nan)
    for k in np.unique(folds):
        test = folds == k
        fitted = clone(model).fit(X[~test], y[~test])
        if not np.array_equal(fitted.classes_, np.arange(n_classes)):
            raise RuntimeError(f"fold {k}: the model saw classes {fitted.classes_}")
        proba[test] = fitted.predict_proba(X[test])
    return proba


def to_micro_units(proba: np.ndarray) -> np.ndarray:
    """Convert probabilities to integer micro-units that are >= 1 and sum to 1,000,000 per row.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        Probabilities; each row is rescaled to sum to 1 before conversion.

    Returns
    -------
    ndarray of int64, shape (n_samples, n_classes)
        See the module docstring for the rounding rule.
    """
    exact = proba / proba.sum(axis=1, keepdims=True) * MICRO
    units = np.floor(exact).astype(np.int64)
    remainder = exact - units
    raised = units < 1
    units[raised] = 1
    deficit = MICRO - units.sum(axis=1)
    rows = np.arange(len(units))

    # Largest remainders first; raised entries have already been rounded up.
    order = np.argsort(np.where(raised, -np.inf, -remainder), axis=1, kind="stable")
    for rank in range(units.shape[1]):
        take = deficit > rank
        units[rows[take], order[take, rank]] += 1
    # Raised entries overshot: take one unit at a time from the largest entry.
    while (over := deficit < 0).any():
        largest = np.argmax(units[over], axis=1)
        units[rows[over], largest] -= 1
        deficit[over] += 1

    if not ((units.sum(axis=1) == MICRO).all() and (units >= 1).all()):
        raise RuntimeError("rounding to micro-units failed")
    return units


def format_units(units: np.ndarray) -> np.ndarray:
    """Format micro-units (each below 1,000,000) as fixed 6-decimal strings like ``0.012345``."""
    return np.char.add("0.", np.char.zfill(units.astype(str), 6))


def write_table(
    path: Path,
    folds: np.ndarray,
    y: np.ndarray,
    units: dict[str, np.ndarray],
) -> None:
    """Write the gzip-compressed CSV, byte-reproducibly (``mtime=0``, no file name in the header).

    Parameters
    ----------
    path : Path
        Output file.
    folds : ndarray of shape (n_samples,)
        Fold of every row.
    y : ndarray of shape (n_samples,)
        Class index of the true grade.
    units : dict of str to ndarray of shape (n_samples, n_classes)
        Micro-units per model, in column order.
    """
    header = ["row", "fold", "cut"]
    cells = [
        np.arange(len(y)).astype(str),
        folds.astype(str),
        np.asarray(CUT_ORDER)[y],
    ]
    for name, table in units.items():
        header += [f"{name}_{label.replace(' ', '_')}" for label in CUT_ORDER]
        text = format_units(table)
        cells += [text[:, j] for j in range(text.shape[1])]
    lines = [",".join(header)]
    lines += [",".join(fields) for fields in zip(*cells, strict=True)]
    payload = ("\n".join(lines) + "\n").encode("ascii")

    path.parent.mkdir(parents=True, exist_ok=True)
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz,
    ):
        gz.write(payload)


def main(argv: list[str] | None = None) -> int:
    """Fit both models out of fold, print their scores and write the data file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "source", type=Path, help="path to diamonds.csv (the ggplot2 diamonds data set)"
    )
    parser.add_argument("--output", type=Path, default=OUTPUT, help="file to write")
    args = parser.parse_args(argv)
    if not args.source.is_file():
        parser.error(f"no such file: {str(args.source)!r}; pass the path of diamonds.csv.")

    print(f"numpy {np.__version__}, pandas {pd.__version__}, scikit-learn {sklearn.__version__}")
    X, y = load_source(args.source)
    splitter = StratifiedKFold(n_splits=N_SPLITS, shuffle=True, random_state=SEED)
    folds = np.empty(len(y), dtype=np.int64)
    for k, (_, test) in enumerate(splitter.split(X, y)):
        folds[test] = k

    units: dict[str, np.ndarray] = {}
    for name, model in build_models().items():
        start = time.perf_counter()
        proba = out_of_fold(model, X, y, folds)
        units[name] = to_micro_units(proba)
        stored = units[name] / MICRO
        print(
            f"{name:>5}: out-of-fold accuracy {accuracy_score(y, proba.argmax(axis=1)):.4f}, "
            f"log loss {log_loss(y, proba, labels=range(len(CUT_ORDER))):.4f} "
            f"(stored: {log_loss(y, stored, labels=range(len(CUT_ORDER))):.4f}); "
            f"largest rounding change {np.abs(stored - proba).max():.2e}; "
            f"{time.perf_counter() - start:.1f} s"
        )

    write_table(args.output, folds, y, units)
    print(f"wrote {args.output} ({args.output.stat().st_size:,} bytes, {len(y):,} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
