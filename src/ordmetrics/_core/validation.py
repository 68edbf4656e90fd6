"""Input handling: labels, probabilities, weights and missing values -> canonical arrays.

Every public metric passes its inputs through these checks, and every message about bad input
is written in them, so that the same mistake always gets the same clear explanation: which
argument, what was expected, what arrived, and how to fix it.

The canonical form is

* ``y``: ``int64`` class indices ``0..K-1`` (``-1`` marks a missing value),
* ``proba``: a C-contiguous ``float64`` or ``float32`` array of shape ``(N, K)``,
* ``weight``: ``float64`` frequency weights of shape ``(N,)``, or ``None`` for unit weights.

Value checks on the probabilities (range, row sums, NaN) run inside the compiled scoring kernels
in one pass; only when a kernel reports a problem does :func:`find_problems` look at the data
again to write a precise message or to apply the ``nan_policy``.

This module gathers the checks from their homes, one concern each:

* :mod:`ordmetrics._core.messages`: row lists, value lists and type names for the messages,
* :mod:`ordmetrics._core.options`: ``nan_policy``, ``reduction`` and flags (built on the
  declarative checks of :mod:`ordmetrics._core.params`),
* :mod:`ordmetrics._core.arrays`: array-likes, real numbers, masked arrays, data frames, scores,
* :mod:`ordmetrics._core.proba`: probability matrices and their full diagnosis,
* :mod:`ordmetrics._core.labels`: the ``labels`` argument and class labels as indices,
* :mod:`ordmetrics._core.weights`: frequency weights,
* :mod:`ordmetrics._core.prepare`: inputs validated together with the ``nan_policy`` applied.
"""

from __future__ import annotations

from ordmetrics._core.arrays import (
    as_scores,
    check_array_like,
    check_real,
    is_pandas,
    is_polars,
    masked_as_missing_labels,
    real_input,
    squeeze_frame,
    unmask,
)
from ordmetrics._core.labels import (
    Encoded,
    check_bool_mix,
    check_labels,
    check_lengths,
    check_non_negative_codes,
    encode_labels,
    is_missing_scalar,
    missing_of_frame_column,
    object_missing,
)
from ordmetrics._core.messages import fmt_rows, fmt_values, type_name
from ordmetrics._core.options import NAN_POLICIES, REDUCTIONS, check_flag, check_option
from ordmetrics._core.prepare import (
    Prepared,
    apply_missing,
    prepare_hard,
    prepare_proba,
    prepare_scores,
)
from ordmetrics._core.proba import (
    ROUNDING_PER_CLASS,
    SUM_TOLERANCE,
    as_proba,
    find_problems,
    looks_like_percentages,
    proba_looks_valid,
    renormalize_rows,
    sum_tolerance,
    sum_tolerance_eps,
)
from ordmetrics._core.weights import (
    as_weights,
    check_weight_values,
    weights_and_missing,
    weights_look_valid,
)

#: The former private name of :func:`renormalize_rows` (imported by the array-API path).
_renormalize = renormalize_rows

__all__ = [
    "NAN_POLICIES",
    "REDUCTIONS",
    "ROUNDING_PER_CLASS",
    "SUM_TOLERANCE",
    "Encoded",
    "Prepared",
    "apply_missing",
    "as_proba",
    "as_scores",
    "as_weights",
    "check_array_like",
    "check_bool_mix",
    "check_flag",
    "check_labels",
    "check_lengths",
    "check_non_negative_codes",
    "check_option",
    "check_real",
    "check_weight_values",
    "encode_labels",
    "find_problems",
    "fmt_rows",
    "fmt_values",
    "is_missing_scalar",
    "is_pandas",
    "is_polars",
    "looks_like_percentages",
    "masked_as_missing_labels",
    "missing_of_frame_column",
    "object_missing",
    "prepare_hard",
    "prepare_proba",
    "prepare_scores",
    "proba_looks_valid",
    "real_input",
    "renormalize_rows",
    "squeeze_frame",
    "sum_tolerance",
    "sum_tolerance_eps",
    "type_name",
    "unmask",
    "weights_and_missing",
    "weights_look_valid",
]
