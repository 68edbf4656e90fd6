"""Messages for a matrix passed where a metric takes class predictions.

A 2-D float ``y_pred`` is most likely a matrix of probabilities: on every path (device
arrays, data frames, NumPy) it must be told to go through ``ordmetrics.decide``, never to be
cast to integers (which would turn every probability into class 0, a silent wrong number).
"""

from __future__ import annotations

import numpy as np
import pytest

import ordmetrics as om

P = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.3, 0.3, 0.4]]
Y = [0, 1, 2, 2]
#: The NumPy path's message for a matrix of probabilities as y_pred.
DECIDE = r"y_pred must be 1-D class predictions.*looks like probabilities.*ordmetrics\.decide\(P"


def _numpy_message(y_true, y_pred):
    with pytest.raises(ValueError) as info:
        om.qwk(y_true, y_pred)
    return str(info.value)


def test_numpy_reference_message():
    assert "looks like probabilities" in _numpy_message(Y, np.array(P))


# --------------------------------------------------------------------------------------------
# Device arrays: the shape is checked before the dtype
# --------------------------------------------------------------------------------------------


def _libraries():
    out = []
    try:
        import torch

        out.append(pytest.param(lambda a, d: torch.asarray(np.asarray(a), dtype=d), id="torch"))
    except ImportError:  # pragma: no cover - torch is in the test extra
        pass
    try:
        import array_api_strict as xps

        out.append(pytest.param(lambda a, d: xps.asarray(np.asarray(a), dtype=d), id="strict"))
    except ImportError:
        out.append(pytest.param(None, id="strict", marks=pytest.mark.skip("no array_api_strict")))
    return out


def _dtypes(make):
    """(float64, int64) of the library of ``make``."""
    probe = make([0], None)
    mod = type(probe).__module__.split(".")[0]
    if mod == "torch":
        import torch

        return torch.float64, torch.int64
    import array_api_strict as xps

    return xps.float64, xps.int64


@pytest.mark.parametrize("make", _libraries())
def test_device_probabilities_as_y_pred_point_to_decide(make):
    """A 2-D float device array as y_pred gets the NumPy path's message (decide), not the
    advice to convert it to an integer dtype."""
    f64, i64 = _dtypes(make)
    with pytest.raises(ValueError, match=DECIDE) as info:
        om.qwk(make(Y, i64), make(P, f64))
    assert str(info.value) == _numpy_message(Y, np.array(P))
    assert ".long()" not in str(info.value) and "integer dtype" not in str(info.value)


@pytest.mark.parametrize("make", _libraries())
def test_device_matrix_that_is_not_probabilities_still_points_to_decide(make):
    f64, i64 = _dtypes(make)
    scores = np.array(P) * 3.0  # rows not summing to 1: no claim that they are probabilities
    with pytest.raises(ValueError, match=r"ordmetrics\.decide\(P") as info:
        om.qwk(make(Y, i64), make(scores, f64))
    assert "looks like probabilities" not in str(info.value)
    assert str(info.value) == _numpy_message(Y, scores)


@pytest.mark.parametrize("make", _libraries())
def test_device_matrix_as_y_true_gets_the_one_hot_message(make):
    f64, i64 = _dtypes(make)
    with pytest.raises(ValueError, match=r"y_true must be 1-D .*One-hot truth"):
        om.qwk(make(P, f64), make(Y, i64))
    with pytest.raises(ValueError, match=r"y_true must be 1-D .*One-hot truth"):
        om.rps(make(P, f64), make(P, f64))


@pytest.mark.parametrize("make", _libraries())
def test_device_float_class_column_still_asks_for_integers(make):
    """A 1-D (or one-column) float device array is a column of classes: the dtype advice."""
    f64, i64 = _dtypes(make)
    for shape in ((4,), (4, 1)):
        y_pred = make(np.reshape(np.array(Y, dtype=float), shape), f64)
        with pytest.raises(TypeError, match=r"y_pred is a device array of dtype .*integer dtype"):
            om.qwk(make(Y, i64), y_pred)


# --------------------------------------------------------------------------------------------
# Data frames of several columns as y_pred
# --------------------------------------------------------------------------------------------


def _frames():
    out = []
    for lib in ("pandas", "polars"):
        try:
            mod = __import__(lib)
        except ImportError:  # pragma: no cover - both are in the test extra
            continue
        out.append(pytest.param(mod, id=lib))
    return out


@pytest.mark.parametrize("mod", _frames())
def test_frame_of_probabilities_as_y_pred_points_to_decide(mod):
    """The probability columns of a model passed as y_pred: told that they look like
    probabilities and to use decide(), not to "pass the column itself"."""
    frame = mod.DataFrame({f"p{k}": [row[k] for row in P] for k in range(3)})
    with pytest.raises(ValueError, match=DECIDE) as info:
        om.qwk(Y, frame)
    assert "column itself" not in str(info.value)
    assert str(info.value) == _numpy_message(Y, np.array(P))


@pytest.mark.parametrize("mod", _frames())
def test_frames_of_other_columns_keep_the_column_message(mod):
    """Text columns as y_pred, and any frame of several columns as y_true: pass one column."""
    text = mod.DataFrame({"a": ["x", "y", "z", "z"], "b": ["x", "y", "z", "z"]})
    with pytest.raises(ValueError, match=r"y_pred must be one column .*column itself"):
        om.qwk(Y, text)
    probs = mod.DataFrame({f"p{k}": [row[k] for row in P] for k in range(3)})
    with pytest.raises(ValueError, match=r"y_true must be one column .*column itself"):
        om.qwk(probs, Y)
