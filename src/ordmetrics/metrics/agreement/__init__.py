"""Agreement between true and predicted classes: kappa, expected cost, MAE family, accuracy, F1.

Every metric here is computed from one weighted confusion matrix over the full label set,
built in a single pass over the rows. With ``labels=None`` the label set is
``0..max(y_true, y_pred)``, so classes absent from the data still count (they matter for the
weights of kappa and for the class-averaged metrics):

================== ============================================= ========== ===========
metric             definition (O: confusion proportions)         range      best
================== ============================================= ========== ===========
kappa              1 - sum(W O) / sum(W E), E = outer(r, c)      [-1, 1]    1 (max)
qwk                kappa with W = (i-j)^2 / (K-1)^2              [-1, 1]    1 (max)
expected_cost      sum(C O)                                      [0, inf)   0 (min)
mae                sum(|i-j| O)                                  [0, K-1]   0 (min)
amae               mean over true classes of the per-class MAE   [0, K-1]   0 (min)
mmae               max over true classes of the per-class MAE    [0, K-1]   0 (min)
accuracy           sum_i O_ii                                    [0, 1]     1 (max)
within_k_accuracy  sum of O_ij with |i-j| <= k                   [0, 1]     1 (max)
macro_f1           mean over present classes of 2 O_ii/(r_i+c_i) [0, 1]     1 (max)
macro_precision    mean over present classes of O_ii / c_i       [0, 1]     1 (max)
macro_recall       mean over present classes of O_ii / r_i       [0, 1]     1 (max)
================== ============================================= ========== ===========

r and c are the row (true) and column (predicted) marginals of O.

The modules: :mod:`~ordmetrics.metrics.agreement.labels` (the label set, the confusion counts,
option checks), :mod:`~ordmetrics.metrics.agreement.formulas` (every metric as a function of
confusion counts, :func:`counts_evaluator`), :mod:`~ordmetrics.metrics.agreement.confusion`
(:func:`confusion_matrix`, one metric on one data set), :mod:`~ordmetrics.metrics.agreement.ordinal`
and :mod:`~ordmetrics.metrics.agreement.accuracy` (the public metrics, registered in this order)
and :mod:`~ordmetrics.metrics.agreement.device` (the same on PyTorch, JAX and CuPy arrays).
"""

from __future__ import annotations

import math

from ordmetrics.metrics.agreement.accuracy import (
    accuracy,
    macro_f1,
    macro_precision,
    macro_recall,
    within_k_accuracy,
)
from ordmetrics.metrics.agreement.confusion import confusion_matrix
from ordmetrics.metrics.agreement.formulas import (
    counts_evaluator,
    warn_if_undefined,
)
from ordmetrics.metrics.agreement.labels import (
    AGREEMENT_METRICS,
    KAPPA_WEIGHTS,
    MAX_IMPLIED_CLASSES,
    NORMALIZE,
    confusion_counts,
    prepare,
    register_agreement,
    warn_empty_classes,
)
from ordmetrics.metrics.agreement.ordinal import (
    amae,
    expected_cost,
    kappa,
    mae,
    mmae,
    qwk,
)

__all__ = [
    "AGREEMENT_METRICS",
    "KAPPA_WEIGHTS",
    "MAX_IMPLIED_CLASSES",
    "NORMALIZE",
    "accuracy",
    "amae",
    "confusion_counts",
    "confusion_matrix",
    "counts_evaluator",
    "expected_cost",
    "kappa",
    "macro_f1",
    "macro_precision",
    "macro_recall",
    "mae",
    "mmae",
    "prepare",
    "qwk",
    "warn_empty_classes",
    "warn_if_undefined",
    "within_k_accuracy",
]

# --------------------------------------------------------------------------------------------
# Registry entries, in this order
# --------------------------------------------------------------------------------------------

_UP_TO_K = "at most K-1 (class-index units)"
register_agreement(
    [
        (
            kappa,
            "maximize",
            (-1, 1),
            1.0,
            "Cohen's kappa (weights= for weighted kappa)",
            "at least -1 with the built-in weights; a user weight matrix can go below",
        ),
        (qwk, "maximize", (-1, 1), 1.0, "quadratic weighted kappa", ""),
        (
            expected_cost,
            "minimize",
            (0, math.inf),
            0.0,
            "expected cost under a cost matrix",
            "at most max C; normalize=True: 1 is the best constant prediction",
        ),
        (mae, "minimize", (0, math.inf), 0.0, "mean absolute error (class indices)", _UP_TO_K),
        (amae, "minimize", (0, math.inf), 0.0, "MAE averaged over true classes", _UP_TO_K),
        (mmae, "minimize", (0, math.inf), 0.0, "largest per-class MAE", _UP_TO_K),
        (accuracy, "maximize", (0, 1), 1.0, "accuracy", ""),
        (within_k_accuracy, "maximize", (0, 1), 1.0, "fraction within k classes (k=1)", ""),
        (macro_f1, "maximize", (0, 1), 1.0, "macro-averaged F1 over present classes", ""),
        (macro_precision, "maximize", (0, 1), 1.0, "macro precision over present classes", ""),
        (macro_recall, "maximize", (0, 1), 1.0, "macro recall over present classes", ""),
    ]
)
