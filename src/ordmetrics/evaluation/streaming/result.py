"""The result of a streaming evaluation: values with a bound on each one's error."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["StreamResult"]


@dataclass(frozen=True, eq=False)
class StreamResult:
    """The values computed by :meth:`Evaluator.compute`, with a bound on each one's error.

    Attributes
    ----------
    values : mapping of str to float
        The value of every metric, by display name (the names of
        :func:`~ordmetrics.metric_set`), in the order of the metric set. ``result[name]`` is
        ``result.values[name]``.
    bounds : mapping of str to float
        For every metric, a bound on ``|value - exact value|``, where the exact value is that of
        :func:`ordmetrics.evaluate` on all the rows: 0.0 for the exact metrics (every metric
        but the ranking ones once their table is on the grid), up to floating-point rounding;
        ``inf`` where the binned value is undefined but the exact one may not be.
    directions : mapping of str to str
        ``"minimize"`` or ``"maximize"`` for every metric.
    n_rows : int
        The rows scored (rows dropped by ``nan_policy="omit"`` not included).
    total_weight : float
        Their total weight (``n_rows`` without weights); ``inf`` when it exceeds the largest
        float (1.8e308), the values being exact all the same (see the module notes).

    Examples
    --------
    >>> from ordmetrics.stream import Evaluator
    >>> ev = Evaluator(["brier", "accuracy"])
    >>> ev.update([0, 1, 1], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    >>> r = ev.compute()
    >>> {name: round(v, 6) for name, v in r.values.items()}
    {'brier': 0.273333, 'accuracy': 0.666667}
    >>> r.exact, r.n_rows
    (True, 3)
    """

    values: Mapping[str, float]
    bounds: Mapping[str, float]
    directions: Mapping[str, str]
    n_rows: int
    total_weight: float

    def __getitem__(self, name: str) -> float:
        return self.values[name]

    @property
    def exact(self) -> bool:
        """True when every bound is 0 (the values are those of the in-memory evaluation)."""
        return all(b == 0.0 for b in self.bounds.values())

    def __repr__(self) -> str:
        width = max(len(n) for n in self.values)
        lines = [f"StreamResult({self.n_rows} rows, total weight {self.total_weight:g})"]
        for name, value in self.values.items():
            bound = self.bounds[name]
            extra = "" if bound == 0.0 else f"  (+- {bound:.3g})"
            lines.append(f"  {name:<{width}}  {value:.10g}{extra}")
        return "\n".join(lines)
