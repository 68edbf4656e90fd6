"""The metric registry: every metric as data (name, direction, range, kind, properties).

Docs, metric sets, command-line tools and tests read these specs instead of repeating them.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

Direction = Literal["minimize", "maximize"]

#: The properties a scoring rule declares; each one is verified by property-based tests.
PROPERTY_NAMES = ("proper", "strictly_proper", "local", "distance_sensitive", "superior")


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
        ``"scoring_rule"`` for per-sample scores of probabilistic predictions; other kinds are
        added by the modules that define them.
    properties : mapping of str to bool
        For scoring rules: ``proper``, ``strictly_proper``, ``local``, ``distance_sensitive``,
        ``superior`` (see DEFINITIONS section 5 and the user guide).
    perfect : float
        The value of a perfect prediction.
    description : str
        One line for tables.
    range_note : str
        How the range depends on K, if it does.
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

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    @property
    def greater_is_better(self) -> bool:
        return self.direction == "maximize"


_REGISTRY: dict[str, MetricSpec] = {}


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
) -> MetricSpec:
    """Register ``func`` as a metric and return its spec."""
    name = name or func.__name__
    if name in _REGISTRY:
        raise ValueError(f"a metric named {name!r} is already registered")
    if direction not in ("minimize", "maximize"):
        raise ValueError(f"direction must be 'minimize' or 'maximize'; got {direction!r}")
    props = dict(properties or {})
    if kind == "scoring_rule":
        missing = set(PROPERTY_NAMES) - set(props)
        if missing:
            raise ValueError(f"scoring rule {name!r} must declare {sorted(missing)}")
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
    )
    _REGISTRY[name] = spec
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
    ['rps', 'sa_rps', 'brier', 'log_loss', 'pbs', 'pll']
    """
    return [n for n, s in _REGISTRY.items() if kind is None or s.kind == kind]
