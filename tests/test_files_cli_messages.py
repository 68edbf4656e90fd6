"""Messages and values of the core met through the command line: a comparison of models with
different numbers of classes, a bad seed of the retention curve, bootstrap intervals of an
infinite log loss, an unknown metric kind."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics.evaluation.resampling import _quantiles

Y = [0, 1, 2, 1, 0, 2]
P3 = np.array([[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]] * 2)
P4 = np.full((6, 4), 0.25)


@pytest.mark.parametrize(
    ("a", "b", "pattern"), [(P3, P4, "a has 3 .* b has 4"), (P4, P3, "a has 4 .* b has 3")]
)
def test_compare_models_with_different_classes_names_the_models(a, b, pattern):
    with pytest.raises(ValueError, match=pattern + r"; both models must predict the same classes"):
        om.compare("rps", Y, a, b, n_resamples=10)
    with pytest.raises(ValueError, match=pattern):
        om.compare("rps", Y, a.tolist(), b.tolist(), n_resamples=10)


def test_compare_error_of_the_second_model_says_so():
    with pytest.raises(ValueError) as info:
        om.compare("rps", Y, P3, P3[:5], n_resamples=10)
    assert "(raised for the predictions b, the second model)" in info.value.__notes__


@pytest.mark.parametrize(
    ("seed", "error"), [("abc", TypeError), (-1, ValueError), (1.5, TypeError)]
)
def test_retention_curve_bad_random_state_names_the_argument(seed, error):
    with pytest.raises(error, match=r"random_state must be None, a non-negative integer seed"):
        om.retention_curve(Y, P3, random_state=seed)


@pytest.mark.parametrize(
    ("values", "want"),
    [
        ([1.0, np.inf], [np.inf, np.inf]),
        ([np.inf, np.inf, np.inf], [np.inf, np.inf]),
        ([-np.inf, 1.0], [-np.inf, -np.inf]),
        ([-np.inf, np.inf], [np.nan, np.nan]),
        ([1.0, 2.0, 3.0, 4.0, 5.0, np.inf], [1.125, np.inf]),
        ([1.0, 2.0, 3.0], [1.05, 2.95]),
    ],
)
def test_quantiles_with_infinities(values, want):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _quantiles(np.array(values), [0.025, 0.975])
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_bootstrap_of_infinite_log_loss_warns_nothing_from_numpy():
    y = [0, 1, 0, 1]
    P = [[0.0, 1.0], [0.3, 0.7], [0.6, 0.4], [0.1, 0.9]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = om.bootstrap("log_loss", y, P, n_resamples=200, random_state=0)
    assert not [w for w in caught if "invalid value" in str(w.message)]
    assert res.estimate == np.inf
    assert res.high == np.inf
