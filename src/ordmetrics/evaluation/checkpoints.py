r"""Checkpoint selection and early stopping from per-epoch validation values.

While a network trains, a validation metric is recorded once per epoch, giving a trajectory
``v[0], v[1], ..., v[n-1]`` (epochs are 0-based). Ahmadian, Ghatee and Wahlström [1]_ (Sect. 5)
use such trajectories in two ways to compare a scoring rule with its penalized version
(Brier score vs. penalized Brier score, log loss vs. penalized log loss):

* **model checkpointing** (CP) keeps the model of the epoch with the best validation value over
  the whole run, and **early stopping** (ES) ends the run once the validation value has not
  improved for ``patience`` epochs (the authors' experiments use ``patience=10``):
  :func:`select_epoch`;
* the **Pearson correlation** of a scoring rule's trajectory with the trajectory of macro-F1
  measures how well the rule tracks classification performance during training:
  :func:`trajectory_correlation`.

Both work on plain sequences of numbers, so they apply to any metric in ordmetrics (or
elsewhere) recorded per epoch.

References
----------
.. [1] Ahmadian, R., Ghatee, M., Wahlström, J. Superior Scoring Rules for Probabilistic
   Evaluation of Single-Label Multi-Class Classification Tasks. Sect. 5 (experiments on
   model checkpointing and early stopping, Fig. 3, Tables 2 and 3).
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ordmetrics._core.registry import MetricSpec, get_metric
from ordmetrics._core.validation import (
    check_real,
    type_name,
)
from ordmetrics._core.warnings import warn_undefined

__all__ = ["EpochSelection", "select_epoch", "trajectory_correlation"]

MODES = ("min", "max")


@dataclass(frozen=True)
class EpochSelection:
    """The epochs chosen by :func:`select_epoch` (all epochs are 0-based positions).

    Attributes
    ----------
    best_epoch : int
        Epoch of the best value among the epochs that were run, i.e. among epochs
        ``0..stop_epoch``. Without patience this is the best epoch of the whole run (model
        checkpointing); with patience it is the best epoch before early stopping ended the run
        (what ``restore_best_weights=True`` restores). Ties go to the earliest epoch.
    stop_epoch : int
        Last epoch that is run: the first epoch at which ``patience`` consecutive epochs have
        passed without a strict improvement of the best value, or ``n_epochs - 1`` when there
        is no patience or the rule never fires.
    best_value : float
        The value at ``best_epoch``.
    mode : {"min", "max"}
        Whether smaller or larger values are better.
    patience : int or None
        The patience used (None: checkpointing over the whole run).
    n_epochs : int
        Length of the trajectory.
    """

    best_epoch: int
    stop_epoch: int
    best_value: float
    mode: str
    patience: int | None
    n_epochs: int

    @property
    def stopped_early(self) -> bool:
        """Whether the early-stopping rule fired (possibly at the last epoch)."""
        return self.patience is not None and self.stop_epoch - self.best_epoch >= self.patience


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def _fmt_epochs(epochs: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(str(int(e)) for e in epochs[:limit])
    more = f" and {epochs.size - limit} more" if epochs.size > limit else ""
    noun = "epoch" if epochs.size == 1 else "epochs"
    return f"{noun} {shown}{more}"


def _is_series(x: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(x, pd.Series)


def _history_dict(x: Any) -> tuple[Mapping[Any, Any], str] | None:
    """The dict of trajectories of a training history and how to index it, or None.

    A Keras ``History`` (what ``model.fit`` returns) holds its dict in ``.history``; its
    ``.history`` and a callback's ``history`` are plain dicts of one list per logged name.
    """
    if isinstance(x, Mapping):
        return x, "history"
    inner = getattr(x, "history", None)
    if isinstance(inner, Mapping):
        owner = "history" if type(x).__name__ == "History" else "callback"
        return inner, f"{owner}.history"
    return None


def _reject_history(x: Any, expected: str) -> None:
    """Raise for a dict of trajectories (one per logged name): one of them must be chosen."""
    found = _history_dict(x)
    if found is None:
        return
    logs, access = found
    keys = [str(k) for k in logs]
    example = next((k for k in keys if k.startswith("val_")), keys[0] if keys else "val_rps")
    shown = ", ".join(repr(k) for k in keys[:6]) + (" ..." if len(keys) > 6 else "")
    raise TypeError(
        f"{expected}; got {type_name(x)} of several trajectories (keys {shown or 'none'}). "
        f"Select one column, e.g. {access}[{example!r}]."
    )


def _as_trajectory(x: Any, name: str) -> np.ndarray:
    """``x`` as a 1-D float64 array of finite numbers, or a clear error naming ``name``."""
    expected = f"{name} must be a 1-D sequence of finite numbers, one per epoch"
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{expected}; got {type_name(x)} {x!r}. Pass a list or array of values.")
    _reject_history(x, expected)
    if _is_series(x):
        if x.dtype == bool or str(x.dtype) == "boolean":
            arr = np.zeros(0, dtype=bool)  # reported as booleans below
        else:
            try:
                arr = x.to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError):
                arr = x.to_numpy()
    else:
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{expected}; could not convert {type_name(x)} to an array ({exc})."
            ) from None
    if arr.ndim == 0 and arr.dtype == object:
        raise TypeError(
            f"{expected}; got {type_name(x)}, which is not an array of numbers. Pass a list "
            "or array (materialize iterators first, e.g. list(values))."
        )
    if arr.dtype.kind == "b":
        raise TypeError(
            f"{expected}; got booleans. Pass numbers, e.g. np.asarray({name}, dtype=float)."
        )
    if arr.dtype.kind == "c":
        raise TypeError(f"{expected}; got complex numbers (dtype {arr.dtype}).")
    try:
        check_real(arr, name)  # text is never parsed as numbers, even "0.5"
    except TypeError:
        raise TypeError(
            f"{expected}; got values of dtype {arr.dtype} that are not numbers. "
            "Convert them to float first."
        ) from None
    if arr.dtype.kind not in "iuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{expected}; got values of dtype {arr.dtype} that are not numbers. "
                "Convert them to float first."
            ) from None
    if arr.ndim != 1:
        hint = (
            " Pass a list or 1-D array instead of a scalar."
            if arr.ndim == 0
            else " Select one column (e.g. history['val_loss']) or flatten it with np.ravel."
        )
        raise ValueError(f"{expected}; got a {arr.ndim}-D array of shape {arr.shape}.{hint}")
    arr = arr.astype(np.float64, copy=False)
    if arr.size == 0:
        raise ValueError(f"{expected}; got an empty sequence (0 epochs).")
    bad = ~np.isfinite(arr)
    if bad.any():
        where = np.flatnonzero(bad)
        kinds = " and ".join(
            k for k, m in (("NaN", np.isnan(arr)), ("infinite", np.isinf(arr))) if m.any()
        )
        raise ValueError(
            f"{expected}; got {kinds} values at {_fmt_epochs(where)} (0-based). Remove or "
            "repair those epochs first (e.g. drop the epochs that were not evaluated)."
        )
    return arr


def _check_patience(patience: Any) -> int | None:
    if patience is None:
        return None
    if isinstance(patience, (bool, np.bool_)) or not isinstance(patience, numbers.Integral):
        raise TypeError(
            "patience must be None (checkpointing over the whole run) or a positive int "
            f"(number of epochs without improvement before stopping); got {type_name(patience)} "
            f"{patience!r}. Pass e.g. patience=10."
        )
    if patience < 1:
        raise ValueError(
            "patience must be None (checkpointing over the whole run) or a positive int; got "
            f"{int(patience)}. Pass patience=1 to stop at the first epoch without improvement "
            "(what Keras does with patience=0 as well)."
        )
    return int(patience)


def _check_mode(mode: Any) -> Literal["min", "max"]:
    if isinstance(mode, str):
        if mode == "min":
            return "min"
        if mode == "max":
            return "max"
    raise ValueError(
        f"mode must be 'min' (smaller values are better, e.g. a loss or the Brier score) or "
        f"'max' (larger values are better, e.g. F1); got {mode!r}."
    )


def _metric_mode(metric: Any) -> Literal["min", "max"]:
    """The mode of a registered metric, from its direction in the registry."""
    if not isinstance(metric, (str, MetricSpec)):
        raise TypeError(
            f"metric must be the registered name of the metric recorded (e.g. 'rps', 'qwk'); "
            f"got {type_name(metric)} {metric!r}."
        )
    try:
        spec = get_metric(metric)
    except ValueError as exc:
        hint = (
            " For a value that is not a registered metric (e.g. Keras' val_loss), pass "
            "mode='min' or mode='max' instead."
        )
        if isinstance(metric, str) and "_" in metric:
            rest = metric.split("_", 1)[1]
            try:
                get_metric(rest)
            except ValueError:
                pass
            else:
                hint = (
                    f" metric takes the registry name: for the logged name {metric!r} pass "
                    f"metric={rest!r}."
                )
        raise ValueError(f"metric: {exc}{hint}") from None
    return "min" if spec.direction == "minimize" else "max"


def _resolve_mode(mode: Any, metric: Any) -> Literal["min", "max"]:
    """The mode from ``mode`` or from ``metric``'s direction; one of them is required.

    No default: a trajectory of a score that is maximized (qwk, F1) read as a loss would pick
    its worst epoch without any sign of a problem.
    """
    if mode is None and metric is None:
        raise ValueError(
            "select_epoch needs to know whether smaller or larger values are better: pass "
            "mode='min' (losses, the scoring rules such as rps or brier) or mode='max' (qwk, "
            "F1, accuracy), or metric= with the registered name of the metric recorded "
            "(metric='rps' gives 'min', metric='qwk' gives 'max')."
        )
    if metric is None:
        return _check_mode(mode)
    from_metric = _metric_mode(metric)
    if mode is None:
        return from_metric
    checked = _check_mode(mode)
    if checked != from_metric:
        raise ValueError(
            f"mode={checked!r} contradicts metric={getattr(metric, 'name', metric)!r}, whose "
            f"values are better when {'smaller' if from_metric == 'min' else 'larger'} "
            f"(mode={from_metric!r}). Pass only one of them."
        )
    return checked


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------


def select_epoch(
    values: Any,
    *,
    mode: Literal["min", "max"] | None = None,
    metric: str | MetricSpec | None = None,
    patience: int | None = None,
) -> EpochSelection:
    r"""Choose an epoch by checkpointing or by early stopping on a validation trajectory.

    Parameters
    ----------
    values : 1-D array-like of float, length ``n >= 1``
        Validation value of each epoch, ``values[e]`` for epoch ``e = 0, ..., n - 1``. A list,
        NumPy array or pandas Series (taken by position; its index is ignored). Every value
        must be finite: NaN or infinite values raise a ``ValueError`` naming the epochs.
        A dict of trajectories (a callback's ``history``, Keras' ``History``) raises a
        ``TypeError``: select one, e.g. ``history["val_rps"]``.
    mode : {"min", "max"}, optional
        ``"min"`` when smaller is better (losses, Brier score, penalized Brier score),
        ``"max"`` when larger is better (F1, accuracy, qwk). Give ``mode`` or ``metric``:
        there is no default, since a maximized score read as a loss would pick its worst
        epoch.
    metric : str or MetricSpec, optional
        The registered name of the metric recorded (``"rps"``, ``"qwk"``; not the logged
        name ``"val_rps"``): ``mode`` is then its direction in the registry
        (``get_metric(metric).direction``). If ``mode`` is given too, they must agree.
    patience : int or None, default None
        None: model checkpointing over the whole run. A positive int ``p``: early stopping
        with patience ``p``.

    Returns
    -------
    EpochSelection
        ``best_epoch``, ``stop_epoch``, ``best_value``, ``mode``, ``patience``, ``n_epochs``
        (and the property ``stopped_early``).

    Raises
    ------
    ValueError
        If neither ``mode`` nor ``metric`` is given, if they disagree, for an unknown
        ``mode`` or ``metric``, a ``patience`` below 1, or values that are not finite or not
        one per epoch.
    TypeError
        For values that are not numbers (or a dict of trajectories) or a ``patience`` that is
        not an int.

    Notes
    -----
    Write ``v_e`` for ``values[e]`` and let ``better(a, b)`` be ``a < b`` for ``mode="min"``
    and ``a > b`` for ``mode="max"``. Epoch ``e`` is an *improvement* when
    ``better(v_e, v_j)`` holds for every ``j < e`` (epoch 0 always is). Improvements are
    strict, so an epoch that only equals the best value so far is no improvement: **among
    epochs with the same best value, the earliest is chosen**.

    *Checkpointing* (``patience=None``): ``best_epoch`` is the earliest epoch with the best
    value of the whole run, ``stop_epoch = n - 1``. This is what Keras'
    ``ModelCheckpoint(save_best_only=True)`` keeps.

    *Early stopping* (``patience=p``), exactly as Keras' ``EarlyStopping(patience=p,
    min_delta=0)`` with the same ``mode``: a counter ``wait`` starts at 0; after each epoch,
    in order, ``wait`` is reset to 0 if the epoch is an improvement and otherwise incremented
    by one, and training stops after the first epoch at which ``wait >= p``. In closed form,
    with ``L(e)`` the last improvement at or before epoch ``e``,

    .. math:: \mathrm{stop\_epoch} = \min\{e : e - L(e) \ge p\}

    (``n - 1`` if no such epoch exists), and ``best_epoch = L(stop_epoch)``, the earliest
    epoch with the best value among epochs ``0..stop_epoch``. When the rule fires,
    ``stop_epoch = best_epoch + p`` and the run holds ``stop_epoch + 1`` epochs; the model
    left at the end of the run is the one of ``stop_epoch`` (``best_epoch`` is what
    ``restore_best_weights=True`` would restore). The rule looks only at epochs up to the
    current one, so on a trajectory recorded without early stopping it gives the epochs at
    which early stopping would have ended that run; later values are never looked at.

    ``select_epoch(v, mode="min", patience=p)`` and ``select_epoch(-v, mode="max",
    patience=p)`` choose the same epochs.

    References
    ----------
    .. [1] Ahmadian, R., Ghatee, M., Wahlström, J. Superior Scoring Rules for Probabilistic
       Evaluation of Single-Label Multi-Class Classification Tasks. Sect. 5.

    Examples
    --------
    Checkpointing on a loss keeps the epoch with the smallest value; the tie between epochs 2
    and 4 goes to the earlier one:

    >>> from ordmetrics.evaluation.checkpoints import select_epoch
    >>> loss = [0.9, 0.7, 0.5, 0.6, 0.5, 0.8]
    >>> sel = select_epoch(loss, mode="min")
    >>> sel.best_epoch, sel.stop_epoch, sel.best_value
    (2, 5, 0.5)

    With patience 2, epochs 3 and 4 do not improve on epoch 2, so the run ends after epoch 4:

    >>> sel = select_epoch(loss, mode="min", patience=2)
    >>> sel.best_epoch, sel.stop_epoch, sel.stopped_early
    (2, 4, True)

    For a score where larger is better:

    >>> select_epoch([0.2, 0.4, 0.3, 0.45], mode="max", patience=3)
    EpochSelection(best_epoch=3, stop_epoch=3, best_value=0.45, mode='max', patience=3,
                   n_epochs=4)

    ``metric=`` reads the direction from the registry (``qwk`` is maximized):

    >>> select_epoch([0.31, 0.52, 0.47], metric="qwk").best_epoch
    1
    """
    mode = _resolve_mode(mode, metric)
    patience = _check_patience(patience)
    v = _as_trajectory(values, "values")
    n = v.size
    epochs = np.arange(n)
    if mode == "min":
        running = np.minimum.accumulate(v)
        improved = np.empty(n, dtype=bool)
        improved[0] = True
        improved[1:] = v[1:] < running[:-1]
    else:
        running = np.maximum.accumulate(v)
        improved = np.empty(n, dtype=bool)
        improved[0] = True
        improved[1:] = v[1:] > running[:-1]
    # last improvement at or before each epoch
    last = np.maximum.accumulate(np.where(improved, epochs, 0))
    stop = n - 1
    if patience is not None:
        fired = np.flatnonzero(epochs - last >= patience)
        if fired.size:
            stop = int(fired[0])
    best = int(last[stop])
    return EpochSelection(
        best_epoch=best,
        stop_epoch=stop,
        best_value=float(v[best]),
        mode=mode,
        patience=patience,
        n_epochs=n,
    )


def trajectory_correlation(a: Any, b: Any) -> float:
    r"""Pearson correlation of two per-epoch trajectories.

    Parameters
    ----------
    a, b : 1-D array-like of float, equal length ``n >= 2``
        Values of two metrics at the same epochs (e.g. macro-F1 and the Brier score on the
        validation set). Lists, NumPy arrays or pandas Series; values are paired by position.
        Two pandas Series must have the same index (align them first otherwise). All values
        must be finite.

    Returns
    -------
    float
        .. math::

            r = \frac{\sum_e (a_e - \bar a)(b_e - \bar b)}
                     {\sqrt{\sum_e (a_e - \bar a)^2 \sum_e (b_e - \bar b)^2}} \in [-1, 1].

        NaN, with an :class:`~ordmetrics.UndefinedMetricWarning`, when ``a`` or ``b`` is
        constant (the denominator is 0).

    Notes
    -----
    ``r`` is symmetric in ``a`` and ``b``, unchanged by ``a -> s a + t`` for ``s > 0`` and
    negated for ``s < 0``. Since losses fall while F1 rises, a scoring rule that tracks F1
    well has a correlation near ``-1`` with it; Ahmadian et al. [1]_ (Sect. 5, Fig. 3,
    Table 2) report the correlation of the *negated* rule with F1, i.e.
    ``trajectory_correlation(f1, -loss) = -trajectory_correlation(f1, loss)``.

    The inputs are scaled by their largest magnitude before centring, so values of any
    magnitude give a result within a few units in the last place of the exact one.

    References
    ----------
    .. [1] Ahmadian, R., Ghatee, M., Wahlström, J. Superior Scoring Rules for Probabilistic
       Evaluation of Single-Label Multi-Class Classification Tasks. Sect. 5.

    Examples
    --------
    >>> from ordmetrics.evaluation.checkpoints import trajectory_correlation
    >>> f1 = [0.10, 0.30, 0.45, 0.50, 0.48]
    >>> brier = [0.80, 0.62, 0.55, 0.50, 0.52]
    >>> round(trajectory_correlation(f1, brier), 6)
    -0.992079
    >>> round(trajectory_correlation(f1, [-x for x in brier]), 6)
    0.992079

    A constant trajectory has no correlation:

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     trajectory_correlation(f1, [0.5] * 5)
    nan
    """
    if _is_series(a) and _is_series(b) and not a.index.equals(b.index):
        raise ValueError(
            "a and b are pandas Series with different indexes, so pairing their values by "
            "position could mix up epochs. Align them first (a, b = a.align(b, join='inner')) "
            "or pass a.to_numpy() and b.to_numpy() if the positions do correspond."
        )
    x = _as_trajectory(a, "a")
    y = _as_trajectory(b, "b")
    if x.size != y.size:
        raise ValueError(
            f"a and b must have one value per epoch for the same epochs; got lengths {x.size} "
            f"and {y.size}. Cut both to the epochs they share."
        )
    if x.size < 2:
        raise ValueError(f"a and b must cover at least 2 epochs for a correlation; got {x.size}.")
    constant = [name for name, t in (("a", x), ("b", y)) if t.min() == t.max()]
    if constant:
        warn_undefined(
            "trajectory_correlation",
            f"{' and '.join(constant)} {'is' if len(constant) == 1 else 'are'} constant over "
            "all epochs (zero variance)",
        )
        return math.nan
    x = x / np.max(np.abs(x))
    y = y / np.max(np.abs(y))
    xc = x - x.mean()
    yc = y - y.mean()
    xc /= np.max(np.abs(xc))
    yc /= np.max(np.abs(yc))
    r = float(np.dot(xc, yc) / math.sqrt(float(np.dot(xc, xc)) * float(np.dot(yc, yc))))
    return min(1.0, max(-1.0, r))
