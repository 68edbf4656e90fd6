"""select_epoch needs the direction of its values: ``mode=`` or ``metric=``, never a guess.

A trajectory of a maximized score (qwk, F1) read with a default ``mode="min"`` gives its worst
epoch without a sign of trouble; these tests pin that the direction is required, that
``metric=`` reads it from the registry, and that a dict of trajectories gets a message that
says which one to select.
"""

from __future__ import annotations

import pytest

import ordmetrics as om
from ordmetrics.evaluation.checkpoints import select_epoch

QWK = [0.31, 0.52, 0.47, 0.40]  # maximized: epoch 1 is the best, epoch 0 the worst


def test_no_direction_is_an_error_naming_both_options():
    with pytest.raises(ValueError, match=r"pass mode='min' .* or mode='max' .* or metric="):
        select_epoch(QWK)
    with pytest.raises(ValueError, match=r"mode='min'.*metric="):
        select_epoch(QWK, mode=None, metric=None, patience=2)


@pytest.mark.parametrize(("metric", "best"), [("qwk", 1), ("rps", 0), ("c_index", 1)])
def test_metric_reads_the_direction_from_the_registry(metric, best):
    sel = select_epoch(QWK, metric=metric)
    want = "min" if om.get_metric(metric).direction == "minimize" else "max"
    assert sel.mode == want
    assert sel.best_epoch == best
    assert sel == select_epoch(QWK, mode=want)


def test_metric_spec_and_agreeing_mode_are_accepted():
    spec = om.get_metric("qwk")
    assert select_epoch(QWK, metric=spec).best_epoch == 1
    assert select_epoch(QWK, metric="qwk", mode="max", patience=1).stop_epoch == 2


def test_mode_contradicting_metric_is_an_error():
    with pytest.raises(ValueError, match=r"mode='min' contradicts metric='qwk'.*mode='max'"):
        select_epoch(QWK, metric="qwk", mode="min")


def test_logged_name_points_to_the_registry_name():
    with pytest.raises(ValueError, match=r"for the logged name 'val_qwk' pass metric='qwk'"):
        select_epoch(QWK, metric="val_qwk")


def test_unregistered_metric_points_to_mode():
    with pytest.raises(ValueError, match=r"unknown metric 'loss'.*pass mode='min' or mode='max'"):
        select_epoch(QWK, metric="loss")


@pytest.mark.parametrize("metric", [3, ["qwk"], b"qwk"])
def test_metric_of_the_wrong_type(metric):
    with pytest.raises(TypeError, match=r"metric must be the registered name"):
        select_epoch(QWK, metric=metric)


def test_a_dict_of_trajectories_says_which_to_select():
    history = {"loss": [1.0, 0.8], "val_rps": [0.3, 0.2], "val_qwk": [0.2, 0.4]}
    with pytest.raises(TypeError, match=r"keys 'loss', 'val_rps', 'val_qwk'.*history\['val_rps'\]"):
        select_epoch(history, mode="min")


def test_a_keras_history_object_says_which_to_select():
    class History:  # what keras' model.fit returns: the dict is its .history
        def __init__(self):
            self.history = {"loss": [1.0, 0.8], "val_qwk": [0.2, 0.4]}

    with pytest.raises(TypeError, match=r"history\.history\['val_qwk'\]"):
        select_epoch(History(), metric="qwk")


def test_trajectory_correlation_rejects_a_dict_too():
    with pytest.raises(TypeError, match=r"a must be a 1-D sequence.*history\['val_rps'\]"):
        om.trajectory_correlation({"val_rps": [0.3, 0.2]}, [1.0, 2.0])
