"""What the drawing functions of :mod:`ordmetrics.plot` share: matplotlib, imported lazily, and the
Axes to draw on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ordmetrics._core.registry import get_metric
from ordmetrics._core.validation import type_name

if TYPE_CHECKING:
    from matplotlib.axes import Axes

# --------------------------------------------------------------------------------------------
# matplotlib, imported lazily
# --------------------------------------------------------------------------------------------


def _pyplot(func: str) -> Any:
    """``matplotlib.pyplot``, or an ImportError naming the ``plot`` extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            f"ordmetrics.plot.{func} needs matplotlib, which is not installed; install it "
            "with `pip install ordmetrics[plot]` (or `pip install matplotlib`)."
        ) from exc
    return plt


def _axes(func: str, ax: Any) -> Axes:
    """The Axes to draw on: ``ax``, or the Axes of a new figure."""
    plt = _pyplot(func)
    if ax is None:
        _, ax = plt.subplots()
        return ax
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(
            f"ax must be a matplotlib Axes (e.g. from plt.subplots()) or None for a new figure; "
            f"got {type_name(ax)}."
        )
    return ax


def _class_names(labels: Sequence[Any] | None, k: int) -> tuple[str, ...]:
    return tuple(str(v) for v in (labels if labels is not None else range(k)))


def _better(name: str) -> str:
    spec = get_metric(name)
    return "higher is better" if spec.direction == "maximize" else "lower is better"
