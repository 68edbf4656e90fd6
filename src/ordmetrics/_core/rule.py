"""The definition record of a scoring rule: one :class:`ScoringRule` per rule.

A rule is defined once, in its module of :mod:`ordmetrics.metrics.scoring`, by a record that
holds everything the rest of the package needs to evaluate it:

* ``kernel``: the compiled per-rule kernel, a numba function
  ``kernel(P, y, w, ws, param, tol, out, rows, pen, parts) -> (total, weight_sum, n_bad)`` that
  runs the rule's row function through the shared driver
  :func:`ordmetrics._core.kernels.drive_rows` (validation, scores and the compensated block
  reduction in one pass over fixed blocks of rows; chunks of blocks run on several threads);
* ``formula``: the same score written once with array-API operations,
  ``formula(xp, P, y, param) -> per-sample scores`` for an array namespace ``xp``, a floating
  (N, K) array ``P`` and integer class indices ``y`` in 0..K-1; it runs on NumPy, PyTorch
  (differentiably), JAX and CuPy arrays;
* ``pack``: the rule's keyword options packed into the single float ``param`` that the kernel
  and the formula receive;
* the metadata with which the public function is registered.

The core (:mod:`ordmetrics._core.kernels`, :mod:`ordmetrics._core.array_api`) receives the
record from the metrics layer and dispatches on it; it never names a rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ScoringRule", "check_rule"]


@dataclass(frozen=True)
class ScoringRule:
    """How one scoring rule is computed and registered (see the module notes).

    Attributes
    ----------
    name : str
        The registry name, also the name of the public function.
    func : callable
        The public function, e.g. :func:`ordmetrics.rps`.
    kernel : numba function
        The compiled per-rule kernel (see the module notes).
    formula : callable
        ``formula(xp, P, y, param)``: the per-sample scores with array-API operations.
    pack : callable
        ``pack(**options) -> param``: the rule's options (validated) as the float ``param``;
        ``pack()`` gives the default.
    log_form : bool
        The kernel gives p_y (clipped where the options say so) instead of the score, and the
        score is -ln p_y (plus the penalty), taken afterwards, vectorised.
    penalty : bool
        The kernel also writes the penalty ln(K) m of a wrong arg-max decision (PLL).
    range : tuple of float
        Smallest and largest value over every K (registry metadata).
    properties : mapping of str to bool
        ``proper``, ``strictly_proper``, ``local``, ``distance_sensitive``, ``superior``.
    description, range_note : str
        One line for tables; how the range depends on K.
    formula_text, range_text : str
        The per-sample score and (when it depends on K) the range in plain text, for the
        generated tables of the README and the docs.
    properties_by_k : mapping
        Properties for one K overriding ``properties``.
    variants : mapping
        Option settings (:class:`ordmetrics._core.registry.Variant`) with other properties.
    """

    name: str
    func: Callable[..., Any] = field(repr=False)
    kernel: Any = field(repr=False)
    formula: Callable[[Any, Any, Any, float], Any] = field(repr=False)
    pack: Callable[..., float] = field(repr=False)
    log_form: bool = False
    penalty: bool = False
    range: tuple[float, float] = (0.0, 1.0)
    properties: Mapping[str, bool] = field(default_factory=dict, repr=False)
    description: str = ""
    range_note: str = ""
    properties_by_k: Mapping[int, Mapping[str, bool]] = field(default_factory=dict, repr=False)
    variants: Mapping[str, Any] = field(default_factory=dict, repr=False)
    formula_text: str = ""
    range_text: str = ""


def check_rule(rule: Any) -> ScoringRule:
    """``rule`` itself when it is a :class:`ScoringRule`; else a TypeError naming it.

    Examples
    --------
    >>> check_rule(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: rule must be a ScoringRule record (e.g. ...); got int 0.
    """
    if not isinstance(rule, ScoringRule):
        raise TypeError(
            "rule must be a ScoringRule record (e.g. "
            "ordmetrics.metrics.scoring.get_rule('rps')); got "
            f"{type(rule).__name__} {rule!r}."
        )
    return rule
