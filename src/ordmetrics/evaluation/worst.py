"""The worst predictions by a per-sample score: error analysis (Galdran, MICCAI 2023, Fig. 3).

A proper scoring rule scores each prediction on its own, so sorting the rows by it shows the
predictions the rule finds worst. Which rows come out on top tells what the rule cares about:
the RPS picks probability mass far from the true grade, the Brier and log scores do not.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.validation import (
    check_option,
    type_name,
)
from ordmetrics.evaluation.retention_inputs import (
    computed_scores,
    per_sample_scores,
    prepare,
    rank_best_first,
)
from ordmetrics.metrics.decisions import label_array

__all__ = ["WorstPredictions", "worst_predictions"]

_BACKENDS = ("pandas", "polars")
_FIXED_COLUMNS = ("row", "y_true", "score")


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class WorstPredictions:
    """The k worst-scored rows (computed by :func:`worst_predictions`), worst first.

    Printing it shows a table: row position, true class, score and the predicted
    probability of each class (headed by the class names when labels are given). Arrays are
    read-only.

    Attributes
    ----------
    index : ndarray of shape (k,)
        Row positions (0-based) in the input, worst first.
    score : ndarray of shape (k,)
        Their per-sample scores (higher is worse).
    y_true : ndarray of shape (k,)
        Their true classes: labels when labels are known, otherwise class indices.
    y_proba : ndarray of shape (k, K)
        Their predicted probabilities.
    labels : tuple or None
        The class labels in ordinal order, or None (classes 0..K-1).
    by : str
        Name of the per-sample score (``"custom"`` for an array or an anonymous callable).
    n_rows : int
        Number of rows the worst were chosen from.
    """

    index: np.ndarray
    score: np.ndarray
    y_true: np.ndarray
    y_proba: np.ndarray
    labels: tuple[Hashable, ...] | None
    by: str
    n_rows: int

    def __len__(self) -> int:
        return int(self.index.size)

    def _class_names(self) -> list[str]:
        k = self.y_proba.shape[1]
        return (
            [str(v) for v in self.labels] if self.labels is not None else [str(j) for j in range(k)]
        )

    def __str__(self) -> str:
        names = self._class_names()
        header = ["row", "y_true", "score", *names]
        rows = [
            [str(int(i)), str(t), f"{s:.4f}", *(f"{p:.3f}" for p in ps)]
            for i, t, s, ps in zip(
                self.index, self.y_true.tolist(), self.score, self.y_proba, strict=True
            )
        ]
        widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
        left = {1}  # the true class, left-aligned; numbers right-aligned

        def line(cells: list[str]) -> str:
            return "  ".join(
                c.ljust(w) if j in left else c.rjust(w)
                for j, (c, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()

        title = (
            f"{len(self)} worst of {self.n_rows} rows by {self.by}, worst first (ties: the "
            "later row first); class columns: predicted probabilities"
        )
        return "\n".join([title, line(header), *(line(r) for r in rows)])

    __repr__ = __str__

    def to_frame(self, backend: str = "pandas") -> Any:
        """The table as a data frame: ``row``, ``y_true``, ``score`` and one column per class.

        Parameters
        ----------
        backend : {"pandas", "polars"}, default "pandas"
            The data-frame library, imported only now.

        Returns
        -------
        pandas.DataFrame or polars.DataFrame
            One row per prediction, worst first. The probability columns are named by the
            classes (``str`` of each label, or ``"0"``, ``"1"``, ... without labels); when a
            name would clash with ``row``, ``y_true`` or ``score`` or with another, all are
            prefixed ``"p_"``.

        Raises
        ------
        ImportError
            If the library is not installed.
        """
        check_option(backend, "backend", _BACKENDS)
        try:
            if backend == "pandas":
                import pandas as lib
            else:
                import polars as lib
        except ImportError:
            raise ImportError(
                f"WorstPredictions.to_frame(backend={backend!r}) needs {backend}, which is not "
                f"installed; install it with `pip install {backend}` (or "
                f"`pip install ordmetrics[{backend}]`)."
            ) from None
        names = self._class_names()
        if len(set(names)) < len(names) or set(names) & set(_FIXED_COLUMNS):
            names = [f"p_{n}" for n in names]
        data: dict[str, Any] = {
            "row": np.asarray(self.index),
            "y_true": self.y_true.tolist() if self.y_true.dtype == object else self.y_true,
            "score": np.asarray(self.score),
        }
        for j, name in enumerate(names):
            data[name] = np.array(self.y_proba[:, j])
        return lib.DataFrame(data)


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise TypeError(
            f"k must be a positive integer (how many worst rows to return); got "
            f"{type_name(k)} {k!r}. Pass e.g. k=10."
        )
    if k < 1:
        raise ValueError(
            f"k must be a positive integer (how many worst rows to return); got {k}. Pass "
            "k >= 1; a k larger than the number of rows returns every row."
        )
    return int(k)


@fill_doc()
def worst_predictions(
    y_true: Any,
    y_proba: Any,
    *,
    by: Any = "rps",
    k: int = 10,
    labels: Any = None,
) -> WorstPredictions:
    r"""The k predictions with the highest (worst) per-sample score, worst first.

    The error analysis of Galdran (2023), Sect. 3.2 and Fig. 3: sort the rows by a scoring
    rule and look at the predictions it finds worst.

    Parameters
    ----------
    %(y_true)s
    %(y_proba)s
    %(by)s
    k : int, default 10
        How many rows to return (at least 1); all rows when k exceeds their number.
    %(labels)s

    Returns
    -------
    WorstPredictions
        ``index``, ``score``, ``y_true``, ``y_proba``, ``labels``, ``by`` and ``n_rows``;
        printing it shows a table, ``to_frame()`` gives a data frame.

    Notes
    -----
    The rows are ranked exactly as in
    :func:`~ordmetrics.evaluation.retention.retention_curve`, best first by score ascending
    with ties by original position ascending, and the worst are the last of that ranking,
    taken from the end: among equal scores the later row counts as worse and comes first,
    which is also the row a retention curve removes first. Selecting k of N rows costs a
    partition of the N scores and a sort of the k worst, O(N + k log k).

    References
    ----------
    .. [1] Galdran, A. Performance Metrics for Probabilistic Ordinal Classifiers. MICCAI 2023,
       Sect. 3.2 (qualitative error analysis) and Fig. 3.

    Examples
    --------
    >>> from ordmetrics.evaluation.worst import worst_predictions
    >>> y = ["mild", "severe", "moderate", "mild"]
    >>> P = [[1.0, 0.0, 0.0], [0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]]
    >>> worst = worst_predictions(y, P, k=3, labels=["mild", "moderate", "severe"])
    >>> worst.index  # rows 1 and 3 tie (RPS 0.78125): the later row comes first
    array([3, 1, 2])
    >>> print(worst)
    3 worst of 4 rows by rps, worst first (ties: the later row first); class columns:
    predicted probabilities
    row  y_true     score   mild  moderate  severe
      3  mild      0.7812  0.000     0.250   0.750
      1  severe    0.7812  0.750     0.250   0.000
      2  moderate  0.0625  0.250     0.500   0.250
    """
    n_top = _check_k(k)
    prep = prepare(y_true, y_proba, labels, None)
    scores, by_name = per_sample_scores(by, y_true, y_proba, prep, labels)
    n = scores.size
    n_top = min(n_top, n)
    order = rank_best_first(scores, head=n - n_top, computed=computed_scores(by_name))
    index = order[n - n_top :][::-1]
    codes = prep.y_true[index]
    y_out = codes if prep.labels is None else label_array(prep.labels)[codes]
    return WorstPredictions(
        index=_frozen(index.astype(np.int64)),
        score=_frozen(scores[index]),
        y_true=_frozen(y_out),
        y_proba=_frozen(np.asarray(prep.other[index], dtype=np.float64)),
        labels=prep.labels,
        by=by_name,
        n_rows=n,
    )
