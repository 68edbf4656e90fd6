"""The expected calibration errors (top-label, classwise, cumulative) and their counts evaluator.

Each is a reduction of the binned sums of :mod:`ordmetrics.metrics.calibration.binning`;
:func:`counts_evaluator` prepares one for the many weightings of the bootstrap.
Definitions: ``docs/definitions.md``, section 4.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ordmetrics._core.docs import fill_doc
from ordmetrics._core.numerics import scale_weights
from ordmetrics._core.registry import register
from ordmetrics._core.validation import check_option
from ordmetrics.metrics.calibration.binning import (
    _BIN_PARAMS,
    _PARAMS_TEMPLATE,
    STRATEGIES,
    _bin_index,
    _ece_per_event,
    _event_columns,
    check_n_bins,
    ece_from_sums,
    event_forecasts,
    prepare,
)

__all__ = ["classwise_ece", "counts_evaluator", "cumulative_ece", "ece"]


@fill_doc(params=_PARAMS_TEMPLATE, bin_params=_BIN_PARAMS)
def ece(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> float:
    r"""Top-label expected calibration error (ECE).

    .. math::

        \mathrm{ECE} = \sum_{b=1}^{B} \frac{W_b}{W}\,\lvert \mathrm{acc}_b - \mathrm{conf}_b
        \rvert

    The confidence of a row is c = max_k p_k and the row is correct when its argmax class
    (ties to the lowest class) is the true class. Rows are binned by confidence; acc_b is the
    weighted fraction of correct rows in bin b, conf_b their mean confidence and W_b their
    weight (W the total weight). Empty bins add nothing.

    Parameters
    ----------
    %(params)s
    %(bin_params)s

    Returns
    -------
    float
        The ECE (NaN under ``nan_policy="propagate"`` when a value is missing).

    Notes
    -----
    Range [0, 1], 0 for a perfectly calibrated prediction; lower is better. The value depends
    on the binning (more bins: more noise, fewer bins: more averaging out); compare models
    with the same ``n_bins`` and ``strategy``. Only the most probable class is looked at: use
    :func:`cumulative_ece` for the calibration of the whole ordinal distribution.

    References
    ----------
    .. [1] Naeini, M. P., Cooper, G. F., Hauskrecht, M. (2015). Obtaining well calibrated
       probabilities using Bayesian binning. AAAI 2015.
    .. [2] Guo, C., Pleiss, G., Sun, Y., Weinberger, K. Q. (2017). On calibration of modern
       neural networks. ICML 2017.

    Examples
    --------
    Two rows of confidence >= 0.5 (bin 1 of 2: one correct, mean confidence 0.85) and two
    below (bin 0: one correct, mean confidence 0.425):

    >>> from ordmetrics.metrics.calibration import ece
    >>> y = [0, 0, 0, 0]
    >>> P = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.4, 0.35, 0.25], [0.3, 0.45, 0.25]]
    >>> round(ece(y, P, n_bins=2), 10)  # 0.5 * |0.5 - 0.85| + 0.5 * |0.5 - 0.425|
    0.2125
    """
    out = _ece_per_event(
        "top_label",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
    )
    return math.nan if out is None else float(out[0])


@fill_doc(params=_PARAMS_TEMPLATE, bin_params=_BIN_PARAMS)
def classwise_ece(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> float:
    r"""Classwise expected calibration error (Kull et al. 2019).

    .. math::

        \mathrm{cwECE} = \frac{1}{K} \sum_{k=1}^{K} \sum_{b=1}^{B} \frac{W_{kb}}{W}
        \,\lvert o_{kb} - f_{kb} \rvert

    The mean over classes k of the binary ECE of the forecast p_k for the event y = k: the
    rows are binned by p_k, f_kb is the mean of p_k in bin b, o_kb the weighted fraction of
    rows of class k there and W_kb the weight of the bin.

    Parameters
    ----------
    %(params)s
    %(bin_params)s

    Returns
    -------
    float
        The classwise ECE (NaN under ``nan_policy="propagate"`` when a value is missing).

    Notes
    -----
    Range [0, 1], 0 for a perfectly calibrated prediction; lower is better. Every class
    counts equally, also classes absent from ``y_true`` (their event never happens). The
    per-class values are ``reliability(..., view="classwise").ece``.

    References
    ----------
    .. [1] Kull, M., Perello-Nieto, M., Kängsepp, M., Silva Filho, T., Song, H., Flach, P.
       (2019). Beyond temperature scaling: obtaining well-calibrated multiclass probabilities
       with Dirichlet calibration. NeurIPS 2019.

    Examples
    --------
    >>> from ordmetrics.metrics.calibration import classwise_ece
    >>> y = [0, 1]
    >>> P = [[0.8, 0.2], [0.4, 0.6]]
    >>> round(classwise_ece(y, P, n_bins=2), 10)  # both classes: (|1 - 0.8| + |0 - 0.4|) / 2
    0.3
    """
    out = _ece_per_event(
        "classwise",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
    )
    return math.nan if out is None else float(np.mean(out))


@fill_doc(params=_PARAMS_TEMPLATE, bin_params=_BIN_PARAMS)
def cumulative_ece(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> float:
    r"""Cumulative (ordinal) expected calibration error.

    .. math::

        \mathrm{cumECE} = \frac{1}{K-1} \sum_{k=1}^{K-1} \sum_{b=1}^{B} \frac{W_{kb}}{W}
        \,\lvert o_{kb} - f_{kb} \rvert

    The mean over the K - 1 thresholds k of the binary ECE of the cumulative forecast
    F_k = p_1 + ... + p_k for the event y <= k: rows are binned by F_k, f_kb is the mean of
    F_k in bin b and o_kb the weighted fraction of rows with y <= k there.

    Parameters
    ----------
    %(params)s
    %(bin_params)s

    Returns
    -------
    float
        The cumulative ECE (NaN under ``nan_policy="propagate"`` when a value is missing).

    Notes
    -----
    Range [0, 1], 0 for a perfectly calibrated prediction; lower is better. The calibration
    counterpart of the RPS, which is the mean Brier score of the same K - 1 events (see
    :func:`rps_decomposition`). For K = 2 it is the binary ECE of the first column p_1 for
    the event "y is the first class". The per-threshold values are
    ``reliability(..., view="cumulative").ece``.

    References
    ----------
    .. [1] Epstein, E. S. (1969). A scoring system for probability forecasts of ranked
       categories. Journal of Applied Meteorology 8(6), 985-987.
    .. [2] Kull, M., Perello-Nieto, M., Kängsepp, M., Silva Filho, T., Song, H., Flach, P.
       (2019). Beyond temperature scaling: obtaining well-calibrated multiclass probabilities
       with Dirichlet calibration. NeurIPS 2019.

    Examples
    --------
    Threshold 1 (F_1 = 0.6 and 0.2; y <= first class: yes, no) and threshold 2 (F_2 = 0.9 and
    0.7; both yes), two bins:

    >>> from ordmetrics.metrics.calibration import cumulative_ece
    >>> y = [0, 1]
    >>> P = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]]
    >>> round(cumulative_ece(y, P, n_bins=2), 10)  # ((0.4 + 0.2) / 2 + 0.2) / 2
    0.25
    """
    out = _ece_per_event(
        "cumulative",
        y_true,
        y_proba,
        n_bins,
        strategy,
        labels,
        sample_weight,
        nan_policy,
        renormalize,
    )
    return math.nan if out is None else float(np.mean(out))


def counts_evaluator(
    name: str,
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: Any = 15,
    strategy: str = "uniform",
    labels: Any = None,
    sample_weight: Any = None,
    nan_policy: str = "raise",
    renormalize: bool = False,
) -> tuple[Callable[[np.ndarray], float], int] | None:
    """Prepare an ECE once for many evaluations under frequency weights.

    Validates the inputs, computes the forecasts and outcomes of the events and the bin of
    every forecast once, and returns ``(evaluate, n)``: ``evaluate(counts)`` is the metric
    ``name`` (``"ece"``, ``"classwise_ece"`` or ``"cumulative_ece"``) with
    ``sample_weight = w * counts``, ``counts`` a vector over the ``n`` scored rows (the
    complete rows under ``nan_policy="omit"``, in order). Each evaluation only adds up the
    weights per bin (the sums of the metric, in row order: bit for bit the metric's value up
    to 32,768 rows; above, the metric adds chunks of rows in their order, see
    :mod:`ordmetrics.metrics.calibration.fused`, and the last bits may differ). Returns
    None when the bins depend on the weights (``strategy="quantile"`` with ``n_bins`` bins)
    or the inputs propagate a missing value; the metric must then be called itself.

    Examples
    --------
    >>> import numpy as np
    >>> from ordmetrics.metrics.calibration import counts_evaluator, ece
    >>> y = [0, 0, 0, 0]
    >>> P = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.4, 0.35, 0.25], [0.3, 0.45, 0.25]]
    >>> evaluate, n = counts_evaluator("ece", y, P, n_bins=2)
    >>> c = np.array([1.0, 2.0, 0.0, 3.0])
    >>> evaluate(c) == ece(y, P, n_bins=2, sample_weight=c)
    True
    """
    views = {"ece": "top_label", "classwise_ece": "classwise", "cumulative_ece": "cumulative"}
    if name not in views:
        raise ValueError(f"name must be 'ece', 'classwise_ece' or 'cumulative_ece'; got {name!r}.")
    view = views[name]
    nb = check_n_bins(n_bins)
    check_option(strategy, "strategy", STRATEGIES)
    if nb is not None and strategy != "uniform":
        return None  # quantile bins move with the weights
    prep, P, _ = prepare(y_true, y_proba, labels, sample_weight, nan_policy, renormalize)
    if prep.propagate:
        return None
    base = prep.weight
    if view != "top_label" and nb is not None:
        pairs = [(f.copy(), o.copy()) for f, o in _event_columns(P, prep.y_true, view)]
        f2 = np.column_stack([f for f, _ in pairs])
        o2 = np.column_stack([o for _, o in pairs])
        per_column = True
    else:
        f2, o2 = event_forecasts(P, prep.y_true, view)
        per_column = False
    n, e = f2.shape
    # bins that do not depend on the weights: uniform edges, or one bin per distinct value
    index, _, b = _bin_index(f2, np.ones(n), nb, strategy)
    if per_column:
        idx_cols = [np.ascontiguousarray(index[:, j]) for j in range(e)]
        f_cols = [np.ascontiguousarray(f2[:, j]) for j in range(e)]
        o_cols = [np.ascontiguousarray(o2[:, j]) for j in range(e)]
    else:
        flat = (index + np.arange(e) * b).ravel()

    def evaluate(counts: np.ndarray) -> float:
        v = counts if base is None else base * counts
        w = scale_weights(v)[0]  # as the metric scales its sample_weight
        total = float(w.sum())
        if per_column:
            out = []
            for j in range(e):
                weight = np.bincount(idx_cols[j], weights=w, minlength=b)
                s_f = np.bincount(idx_cols[j], weights=w * f_cols[j], minlength=b)
                s_o = np.bincount(idx_cols[j], weights=w * o_cols[j], minlength=b)
                out.append(ece_from_sums(weight[None], s_f[None], s_o[None], total)[0])
            values = np.array(out)
        else:
            ww = np.broadcast_to(w[:, None], (n, e))
            size = e * b
            weight = np.bincount(flat, weights=ww.ravel(), minlength=size).reshape(e, b)
            s_f = np.bincount(flat, weights=(ww * f2).ravel(), minlength=size).reshape(e, b)
            s_o = np.bincount(flat, weights=(ww * o2).ravel(), minlength=size).reshape(e, b)
            values = ece_from_sums(weight, s_f, s_o, total)
        return float(values[0]) if view == "top_label" else float(np.mean(values))

    return evaluate, int(n)


# --------------------------------------------------------------------------------------------
# Registry entries
# --------------------------------------------------------------------------------------------

for _func, _desc, _view in [
    (ece, "top-label expected calibration error", "top_label"),
    (classwise_ece, "classwise expected calibration error (mean over classes)", "classwise"),
    (
        cumulative_ece,
        "cumulative (ordinal) expected calibration error, mean over thresholds",
        "cumulative",
    ),
]:
    register(
        _func,
        direction="minimize",
        range=(0, 1),
        kind="calibration",
        perfect=0.0,
        description=_desc,
        accumulate_options={"view": _view},
    )
