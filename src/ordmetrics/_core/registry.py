"""The metric registry: every metric as data (name, direction, range, kind, properties).

Docs, metric sets, command-line tools and tests read these specs instead of repeating them.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from ordmetrics._core.loading import complete

Direction = Literal["minimize", "maximize"]

#: The properties a scoring rule declares; each one is verified by property-based tests.
PROPERTY_NAMES = ("proper", "strictly_proper", "local", "distance_sensitive", "superior")

#: Properties that may be declared for one number of classes K (``properties_by_k``), on top
#: of :data:`PROPERTY_NAMES`: ``superior_without_ties`` is superiority restricted to forecasts
#: with a unique most probable class (every such correct prediction scores strictly better
#: than every such incorrect one).
K_PROPERTY_NAMES = (*PROPERTY_NAMES, "superior_without_ties")

#: How a metric is formed from the K classes, in the vocabulary of yardstick's ``.estimator``
#: column: ``multiclass`` (one formula for every K, e.g. the multiclass Brier score, the RPS,
#: kappa), ``macro`` (the mean over classes of a per-class value), ``max`` (the largest
#: per-class value), ``top_label`` (of the most probable class), ``cumulative`` (the mean over
#: the K - 1 cumulative thresholds), ``ordinal`` (over the pairs of rows of different classes)
#: and ``standard`` (a number computed as for a numeric outcome: class indices, ranks).
ESTIMATORS = ("multiclass", "macro", "max", "top_label", "cumulative", "ordinal", "standard")

#: Estimators named ``binary`` when K = 2, as yardstick names them: the formula is the same
#: for every K, so the two-class value is the binary metric itself.
BINARY_ESTIMATORS = ("multiclass", "ordinal")

#: What a metric is computed from: ``probabilities`` (the N x K matrix: scoring rules,
#: calibration), ``decisions`` (hard labels, decided from the probabilities once per decision
#: rule and shared by every metric of the set: agreement) or ``scores`` (one ordinal score per
#: row; given probabilities, the expected grade: ranking).
INPUTS = ("probabilities", "decisions", "scores")

#: How a metric accumulates over batches (update, merge, finalize), by family: ``mean_score``
#: (weighted sums of per-sample scores), ``confusion_matrix`` (weighted counts of (truth,
#: decision) pairs), ``rank_table`` (weighted counts of (score, truth) pairs), and
#: ``calibration_bins`` (binned sums of forecasts and outcomes); ``None`` for a metric that
#: needs every row at once (it cannot be streamed). The families are implemented once, in
#: :mod:`ordmetrics.evaluation`, for every metric that names them.
ACCUMULATORS = ("mean_score", "confusion_matrix", "rank_table", "calibration_bins")

#: The input and accumulator of each kind: a metric of a registered kind inherits them.
#: Their order is the order of :func:`list_metrics`.
KIND_DEFAULTS: dict[str, tuple[str, str | None]] = {
    "scoring_rule": ("probabilities", "mean_score"),
    "agreement": ("decisions", "confusion_matrix"),
    "calibration": ("probabilities", "calibration_bins"),
    "ranking": ("scores", "rank_table"),
}

#: The estimator of the registered metrics that are not ``multiclass`` (the default of
#: :func:`register`, for metrics registered without ``estimator=``).
_ESTIMATOR_OF = {
    "mae": "standard",
    "amae": "macro",
    "mmae": "max",
    "macro_f1": "macro",
    "macro_precision": "macro",
    "macro_recall": "macro",
    "ece": "top_label",
    "classwise_ece": "macro",
    "cumulative_ece": "cumulative",
    "c_index": "ordinal",
    "spearman": "standard",
    "kendall_tau": "standard",
}


@dataclass(frozen=True)
class Variant:
    """A documented option setting of a metric whose properties differ from the default's.

    Attributes
    ----------
    options : mapping
        The keyword arguments that select the variant, e.g. ``{"ties": "unpenalized"}``.
    properties : mapping of str to bool
        The properties of the variant (every name of ``PROPERTY_NAMES``).
    note : str
        One line: why they differ.
    """

    options: Mapping[str, Any]
    properties: Mapping[str, bool]
    note: str = ""


@dataclass(frozen=True)
class MetricSpec:
    """Description of a registered metric.

    Attributes
    ----------
    name : str
        Registry name, also the name of the public function.
    func : callable
        The public function computing the metric.
    direction : {"minimize", "maximize"}
        Whether lower or higher values are better.
    range : tuple of float
        Smallest and largest possible values (``inf`` where unbounded). Bounds that depend on
        the number of classes K are given for the worst case over K and explained in
        ``range_note``.
    kind : str
        The family of the metric, for listings: ``"scoring_rule"`` (per-sample scores of
        probabilistic predictions), ``"agreement"``, ``"calibration"``, ``"ranking"``; other
        kinds are added by the modules that define them. How a front computes a metric depends
        on ``input`` and ``accumulates``, never on the kind.
    properties : mapping of str to bool
        For scoring rules: ``proper``, ``strictly_proper``, ``local``, ``distance_sensitive``,
        ``superior`` (see ``docs/definitions.md``, section 5, and the user guide).
    perfect : float
        The value of a perfect prediction.
    description : str
        One line for tables.
    range_note : str
        How the range depends on K, if it does.
    properties_by_k : mapping of int to mapping of str to bool
        Properties that hold (or fail) for one number of classes K and override
        ``properties`` there, e.g. ``{2: {"superior_without_ties": True}}`` for the Brier
        score (the theorems that it is not superior need K > 2). See :meth:`properties_for`.
    variants : mapping of str to Variant
        Option settings with other properties than the default (e.g. PBS with
        ``ties="unpenalized"``), each verified by the property tests like the default.
    estimator : str
        How the metric is formed from the K classes (one of :data:`ESTIMATORS`), the
        ``estimator`` column of :func:`ordmetrics.evaluate`; see :meth:`estimator_for`.
    input : str
        What the metric is computed from, one of :data:`INPUTS`.
    accumulates : str or None
        How it accumulates over batches, one of :data:`ACCUMULATORS`, or ``None`` when it needs
        every row at once.
    accumulate_options : mapping
        Options of the accumulator family for this metric (e.g. the calibration view).
    formula : str
        The definition in one line of plain text, for generated tables (e.g. the README's).
    range_text : str
        The range as shown in tables when it depends on K (e.g. ``[0, 2 + (K-1)/K]``); empty
        for ``[range[0], range[1]]``.
    """

    name: str
    func: Callable[..., Any] = field(repr=False, compare=False)
    direction: Direction
    range: tuple[float, float]
    kind: str
    properties: Mapping[str, bool] = field(default_factory=dict)
    perfect: float = 0.0
    description: str = ""
    range_note: str = ""
    properties_by_k: Mapping[int, Mapping[str, bool]] = field(default_factory=dict)
    variants: Mapping[str, Variant] = field(default_factory=dict)
    estimator: str = "multiclass"
    input: str = "probabilities"
    accumulates: str | None = None
    accumulate_options: Mapping[str, Any] = field(default_factory=dict)
    formula: str = ""
    range_text: str = ""

    def estimator_for(self, n_classes: int) -> str:
        """The ``estimator`` string for ``n_classes`` classes, as yardstick writes it.

        ``binary`` for two classes when the formula is the same for every K (estimators
        ``multiclass`` and ``ordinal``, see :data:`BINARY_ESTIMATORS`), else ``estimator``: a
        macro average over two classes is not the binary value of one event class.

        Examples
        --------
        >>> import ordmetrics
        >>> ordmetrics.get_metric("rps").estimator_for(5), ordmetrics.get_metric(
        ...     "rps").estimator_for(2)
        ('multiclass', 'binary')
        >>> ordmetrics.get_metric("macro_f1").estimator_for(2)
        'macro'
        """
        if int(n_classes) == 2 and self.estimator in BINARY_ESTIMATORS:
            return "binary"
        return self.estimator

    def properties_for(self, n_classes: int) -> dict[str, bool]:
        """The properties for ``n_classes`` classes: ``properties`` with the K overrides.

        ``superior_without_ties`` defaults to ``superior`` (a superior rule is also superior on
        untied forecasts).

        Examples
        --------
        >>> import ordmetrics
        >>> spec = ordmetrics.get_metric("brier")
        >>> spec.properties_for(3)["superior_without_ties"], spec.properties_for(2)[
        ...     "superior_without_ties"]
        (False, True)
        """
        props = dict(self.properties)
        props.setdefault("superior_without_ties", props.get("superior", False))
        props.update(self.properties_by_k.get(int(n_classes), {}))
        return props

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    @property
    def greater_is_better(self) -> bool:
        return self.direction == "maximize"


_REGISTRY: dict[str, MetricSpec] = {}


class _KindDefault(enum.Enum):
    """The default of an argument of :func:`register` that the metric's kind supplies."""

    KIND = "the kind's default"


def register(
    func: Callable[..., Any],
    *,
    direction: Direction,
    range: tuple[float, float],
    kind: str,
    properties: Mapping[str, bool] | None = None,
    perfect: float = 0.0,
    description: str = "",
    range_note: str = "",
    name: str | None = None,
    properties_by_k: Mapping[int, Mapping[str, bool]] | None = None,
    variants: Mapping[str, Variant] | None = None,
    estimator: str | None = None,
    input: str | None = None,
    accumulates: str | _KindDefault | None = _KindDefault.KIND,
    accumulate_options: Mapping[str, Any] | None = None,
    formula: str = "",
    range_text: str = "",
) -> MetricSpec:
    """Register ``func`` as a metric and return its spec.

    ``estimator`` (one of :data:`ESTIMATORS`) defaults to the metric's entry of the table of
    non-``multiclass`` metrics, else ``"multiclass"``. ``input`` and ``accumulates`` default to
    those of the ``kind`` (:data:`KIND_DEFAULTS`); a metric of a new kind must give ``input``
    (its ``accumulates`` defaults to None: not streamed); ``accumulates=None`` states that a
    metric of any kind needs every row at once. With its ``input``, a metric is
    computed by every front (metric sets, data frames, callbacks, scorers): the function is
    called as ``func(y_true, x, labels=..., sample_weight=..., nan_policy=...)`` with ``x``
    the probabilities (``"probabilities"``, ``"scores"``) or the decided classes
    (``"decisions"``), and its keyword-only arguments are its options.
    """
    name = name or func.__name__
    estimator = _ESTIMATOR_OF.get(name, "multiclass") if estimator is None else estimator
    if estimator not in ESTIMATORS:
        raise ValueError(
            f"estimator of {name!r} must be one of {', '.join(ESTIMATORS)}; got {estimator!r}"
        )
    if name in _REGISTRY:
        raise ValueError(f"a metric named {name!r} is already registered")
    if direction not in ("minimize", "maximize"):
        raise ValueError(f"direction must be 'minimize' or 'maximize'; got {direction!r}")
    props = dict(properties or {})
    if kind == "scoring_rule":
        missing = set(PROPERTY_NAMES) - set(props)
        if missing:
            raise ValueError(f"scoring rule {name!r} must declare {sorted(missing)}")
    by_k = {int(k): MappingProxyType(dict(v)) for k, v in (properties_by_k or {}).items()}
    for k, v in by_k.items():
        unknown = set(v) - set(K_PROPERTY_NAMES)
        if k < 2 or unknown:
            raise ValueError(f"properties_by_k of {name!r}: bad entry {k}: {dict(v)}")
    var = dict(variants or {})
    for label, variant in var.items():
        missing = set(PROPERTY_NAMES) - set(variant.properties)
        if missing:
            raise ValueError(f"variant {label!r} of {name!r} must declare {sorted(missing)}")
    default_input, default_acc = KIND_DEFAULTS.get(kind, (None, None))
    input = default_input if input is None else input
    if input not in INPUTS:
        new_kind = f" (kind {kind!r} has no default input: pass input=)" if input is None else ""
        raise ValueError(
            f"input of {name!r} must be one of {', '.join(INPUTS)}; got {input!r}{new_kind}"
        )
    if isinstance(accumulates, _KindDefault):
        accumulates = default_acc
    if accumulates is not None and accumulates not in ACCUMULATORS:
        raise ValueError(
            f"accumulates of {name!r} must be one of {', '.join(ACCUMULATORS)} or None; "
            f"got {accumulates!r}"
        )
    spec = MetricSpec(
        name=name,
        func=func,
        direction=direction,
        range=(float(range[0]), float(range[1])),
        kind=kind,
        properties=MappingProxyType(props),
        perfect=float(perfect),
        description=description,
        range_note=range_note,
        properties_by_k=MappingProxyType(by_k),
        variants=MappingProxyType(var),
        estimator=estimator,
        input=input,
        accumulates=accumulates,
        accumulate_options=MappingProxyType(dict(accumulate_options or {})),
        formula=formula,
        range_text=range_text,
    )
    _REGISTRY[name] = spec
    return spec


def unregister(name: str) -> MetricSpec:
    """Remove a registered metric and return its spec (for metrics registered for a while,
    e.g. by a test).

    Raises
    ------
    ValueError
        For a name that is not registered.
    """
    spec = get_metric(name)
    del _REGISTRY[spec.name]
    return spec


def get_metric(name: str | MetricSpec) -> MetricSpec:
    """Return the spec of a registered metric.

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"rps"``.

    Returns
    -------
    MetricSpec
        With ``.name``, ``.direction``, ``.range``, ``.kind``, ``.properties`` and the function
        itself (the spec is callable).

    Examples
    --------
    >>> import ordmetrics
    >>> spec = ordmetrics.get_metric("rps")
    >>> spec.direction, spec.range, spec.properties["proper"]
    ('minimize', (0.0, 1.0), True)
    """
    if isinstance(name, MetricSpec):
        return name
    if not isinstance(name, str):
        raise TypeError(f"metric name must be a string; got {type(name).__name__} {name!r}.")
    if name not in _REGISTRY:
        complete()  # the package imports its metric modules on first use
    try:
        return _REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(name, list(_REGISTRY), n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ValueError(
            f"unknown metric {name!r}.{hint} Available: {', '.join(_REGISTRY)}."
        ) from None


def list_metrics(kind: str | None = None) -> list[str]:
    """Names of the registered metrics, in registration order, optionally of one ``kind``.

    Examples
    --------
    >>> import ordmetrics
    >>> ordmetrics.list_metrics("scoring_rule")
    ['rps', 'sa_rps', 'brier', 'log_loss', 'pbs', 'pll', 'spherical', 'cdf_l1']

    Raises
    ------
    ValueError
        For a ``kind`` that no registered metric has (the message lists the kinds).
    """
    if kind is not None:
        kinds = list(dict.fromkeys(s.kind for s in _ordered()))
        if not isinstance(kind, str) or kind not in kinds:
            raise ValueError(
                f"kind must be one of {', '.join(repr(k) for k in kinds)} (or None for every "
                f"metric); got {kind!r}."
            )
    return [s.name for s in _ordered() if kind is None or s.kind == kind]


def _ordered() -> list[MetricSpec]:
    """The specs by kind (the order of :data:`KIND_DEFAULTS`, then other kinds), each kind in
    registration order: the listing does not depend on the order in which modules import."""
    complete()
    rank = {k: i for i, k in enumerate(KIND_DEFAULTS)}
    return sorted(_REGISTRY.values(), key=lambda s: rank.get(s.kind, len(rank)))
