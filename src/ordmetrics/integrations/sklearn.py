"""scikit-learn scorers for every registered ordmetrics metric.

:func:`get_scorer` turns a metric name into a scorer, an object called as
``scorer(estimator, X, y_true, sample_weight=None)`` that scikit-learn accepts wherever it
takes ``scoring=``: :func:`~sklearn.model_selection.cross_val_score`,
:func:`~sklearn.model_selection.cross_validate`, :class:`~sklearn.model_selection.GridSearchCV`
and the other searches, alone or in a dict of several scorers.

.. important::

   **Scorers return "greater is better" values.** For a metric that is minimized (the scoring
   rules such as ``rps`` and ``log_loss``, the costs and errors such as ``mae`` and
   ``expected_cost``, and the calibration errors) the scorer returns the metric **negated**:
   ``get_scorer("rps")`` returns ``-rps``, so a cross-validated score of -0.12 means an RPS of
   0.12. Metrics that are maximized (``qwk``, ``kappa``, ``accuracy``, ``c_index``, ...) are
   returned as they are. This is the convention of scikit-learn's own ``neg_log_loss``; the
   sign of a scorer is in its ``sign`` attribute and in its ``repr``.

What the scorer asks the estimator for depends on the input of the metric, its registry
entry's ``input`` (see :func:`ordmetrics.get_metric`):

============== ================= ============================================================
input          estimator method  passed to the metric
============== ================= ============================================================
probabilities  ``predict_proba`` the probabilities, columns in ordinal order (scoring rules,
                                 calibration)
scores         ``predict_proba`` the probabilities, which the metric ranks by their expected
                                 grade sum_k k p_k (ranking)
decisions      ``predict``       the predicted classes (agreement)
============== ================= ============================================================

Agreement metrics use the estimator's own ``predict``, as scikit-learn's scorers do, so a
scorer scores the classes the model would output (for most classifiers the most probable
class). To score another decision rule (say the median of the predicted distribution, the
Bayes decision for absolute cost), compute it with :func:`ordmetrics.decide` on out-of-fold
probabilities.

Column alignment. ``predict_proba`` returns one column per entry of ``estimator.classes_``,
which scikit-learn sorts (alphabetically for strings) and which holds only the classes seen in
training. The scorer reorders the columns into the ordinal order of ``labels``; a class of
``labels`` that is absent from ``classes_`` (a cross-validation fold whose training part lacks
it) gets a column of zeros: the model gives it probability 0. This is the honest prediction
of such a model, and it can make ``log_loss`` infinite when that class occurs in the test part.
A class of ``classes_`` that is not in ``labels`` is an error. Without ``labels`` the classes
must be integers and are taken in increasing order (the union of ``classes_`` and the classes
of ``y_true``); other classes without ``labels`` are an error, because strings have no order
that could be guessed. Pass ``labels`` whenever a class may be missing from a fold: with them
every fold is scored with the same K classes.

Sample weights. ``scorer(estimator, X, y, sample_weight=w)`` gives the weighted metric.
Inside scikit-learn's tools the weights reach the scorer as follows (scikit-learn >= 1.4):

* ``GridSearchCV(...).fit(X, y, sample_weight=w)`` (and the other searches) passes the test
  part of ``w`` to the scorer as well as to ``fit`` from scikit-learn 1.7 on; with older
  versions, use metadata routing as below.
* ``cross_validate`` and ``cross_val_score`` pass ``params={"sample_weight": w}`` to ``fit``
  only, unless metadata routing is enabled: with
  ``sklearn.set_config(enable_metadata_routing=True)``, request the weights with
  ``scorer.set_score_request(sample_weight=True)`` (and with ``set_fit_request`` on the
  estimator); the scorer then gets the test part of ``w``. As with scikit-learn's own scorers,
  passing weights that the scorer has not requested is then an error.

Errors raised while scoring inside scikit-learn's tools become the ``error_score`` of the fold
(NaN with a warning by default); pass ``error_score="raise"`` to see them.

scikit-learn is an optional dependency of ordmetrics: ``pip install ordmetrics[sklearn]``.
"""

from __future__ import annotations

import inspect
from collections.abc import Hashable
from typing import Any

import numpy as np

from ordmetrics._core.registry import (
    get_metric,
    list_metrics,
)
from ordmetrics._core.validation import (
    check_labels,
    type_name,
)

__all__ = ["OrdinalScorer", "get_scorer", "get_scorer_names"]

#: The estimator method that gives each input of a metric (``MetricSpec.input``).
_RESPONSE_METHOD = {
    "probabilities": "predict_proba",
    "scores": "predict_proba",
    "decisions": "predict",
}

#: Arguments of the metric functions that the scorer supplies itself.
_SUPPLIED = ("y_true", "y_proba", "y_pred", "y_score", "labels", "sample_weight")


def _require_sklearn() -> Any:
    """Import scikit-learn, or raise an ImportError naming the extra that installs it."""
    try:
        import sklearn
    except ImportError as exc:
        raise ImportError(
            "ordmetrics.sklearn needs scikit-learn, which is not installed. Install it with "
            "`pip install ordmetrics[sklearn]` (or `pip install scikit-learn`)."
        ) from exc
    return sklearn


def get_scorer_names(kind: str | None = None) -> list[str]:
    """Names that :func:`get_scorer` accepts, optionally only those of one kind of metric.

    Parameters
    ----------
    kind : str, optional
        Only the metrics of this registry kind (``"scoring_rule"``, ``"agreement"``,
        ``"ranking"``, ``"calibration"``, ...; see :func:`ordmetrics.list_metrics`).

    Returns
    -------
    list of str
        Registry names, in registration order.

    Examples
    --------
    >>> from ordmetrics.sklearn import get_scorer_names
    >>> get_scorer_names("ranking")
    ['c_index', 'spearman', 'kendall_tau']
    >>> "rps" in get_scorer_names()
    True
    """
    kinds = list(dict.fromkeys(get_metric(n).kind for n in list_metrics()))
    if kind is not None and kind not in kinds:
        allowed = ", ".join(repr(k) for k in kinds)
        raise ValueError(
            f"kind must be one of {allowed} or None; got {kind!r}. Call "
            "get_scorer_names() without kind to list every name."
        )
    return [n for n in list_metrics(kind) if get_metric(n).input in _RESPONSE_METHOD]


def _is_integer_array(values: np.ndarray) -> bool:
    """Whether every value is an integer (bools and floats do not count)."""
    if values.dtype.kind in "iu":
        return True
    if values.dtype == object:
        return all(
            isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_)
            for v in values.ravel().tolist()
        )
    return False


def _fmt(values: list[Any], limit: int = 8) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")


class OrdinalScorer:
    """A scikit-learn scorer computing one ordmetrics metric; greater is always better.

    Create it with :func:`get_scorer`, which documents the parameters. Calling it as
    ``scorer(estimator, X, y_true, sample_weight=None)`` returns ``sign * metric``, where
    ``sign`` is -1 for metrics that are minimized (losses are negated) and +1 otherwise.

    Attributes
    ----------
    metric : str
        Registry name of the metric.
    kind : str
        The metric's registry kind: ``"scoring_rule"``, ``"agreement"``, ``"ranking"``,
        ``"calibration"``, ...
    sign : int
        -1 when the metric is minimized (the scorer returns it negated), +1 otherwise.
    response_method : str
        ``"predict_proba"`` or ``"predict"``: what the scorer asks the estimator for.
    labels : tuple or None
        The class labels in ordinal order, or None for integer classes in increasing order.
    kwargs : dict
        The metric's options, passed to it on every call.
    """

    def __init__(self, metric: str, *, labels: Any = None, **kwargs: Any) -> None:
        _require_sklearn()
        spec = get_metric(metric)
        if spec.input not in _RESPONSE_METHOD:  # pragma: no cover - every input is handled
            raise ValueError(
                f"metric {spec.name!r} has input {spec.input!r}, which no scorer can give it; "
                f"get_scorer_names() lists the metrics that have one."
            )
        self.metric: str = spec.name
        self.kind: str = spec.kind
        self.sign: int = 1 if spec.greater_is_better else -1
        self.response_method: str = _RESPONSE_METHOD[spec.input]
        self.labels: tuple[Hashable, ...] | None = (
            None if labels is None else check_labels(labels, None)
        )
        self.kwargs: dict[str, Any] = self._check_options(spec.func, kwargs)
        self._sample_weight_request: bool | str | None = None

    # ----------------------------------------------------------------------------------------
    # Construction
    # ----------------------------------------------------------------------------------------

    def _check_options(self, func: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        params = inspect.signature(func).parameters
        options = [
            n
            for n, p in params.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and n not in _SUPPLIED
        ]
        for key in kwargs:
            if key == "sample_weight":
                raise TypeError(
                    "sample_weight is not an option of the scorer: pass it when the scorer is "
                    "called, scorer(estimator, X, y, sample_weight=w), or let scikit-learn "
                    "route it (see the ordmetrics.sklearn module documentation)."
                )
            if key not in options:
                listed = ", ".join(options) if options else "none"
                raise TypeError(
                    f"get_scorer({self.metric!r}) got an unknown option {key!r}; the options of "
                    f"{self.metric} are: {listed}. The true classes, the predictions and the "
                    "sample weights are supplied by the scorer."
                )
        if kwargs.get("reduction", "mean") == "none":
            raise ValueError(
                f"reduction='none' gives one score per row, but a scorer must return one "
                f"number; got get_scorer({self.metric!r}, reduction='none'). Use 'mean' (the "
                "default) or 'sum'."
            )
        return dict(kwargs)

    # ----------------------------------------------------------------------------------------
    # scikit-learn protocol
    # ----------------------------------------------------------------------------------------

    def __call__(self, estimator: Any, X: Any, y_true: Any, sample_weight: Any = None) -> float:
        """Score ``estimator`` on ``X`` against ``y_true``; greater is better.

        Parameters
        ----------
        estimator : fitted classifier
            With ``classes_`` and ``predict_proba`` (metrics of probabilities or scores:
            scoring rules, ranking and calibration) or ``predict`` (metrics of decisions:
            agreement).
        X : array-like
            The samples to predict.
        y_true : array-like of shape (n_samples,)
            Their true classes.
        sample_weight : array-like of shape (n_samples,), optional
            Passed to the metric.

        Returns
        -------
        float
            The metric, negated when it is minimized.
        """
        func = get_metric(self.metric).func
        classes = self._classes(estimator)
        if self.response_method == "predict":
            if not callable(getattr(estimator, "predict", None)):
                raise TypeError(
                    f"{self.metric} compares predicted classes, so the estimator needs a "
                    f"predict method; {type(estimator).__name__} has none."
                )
            y_pred = estimator.predict(X)
            labels = self._resolve_labels(classes, y_true, y_pred)
            value = func(y_true, y_pred, labels=labels, sample_weight=sample_weight, **self.kwargs)
        else:
            if not callable(getattr(estimator, "predict_proba", None)):
                raise TypeError(
                    f"{self.metric} is a {self.kind.replace('_', ' ')} metric computed from "
                    f"predicted probabilities, so the estimator needs a predict_proba method; "
                    f"{type(estimator).__name__} has none. Use a classifier that predicts "
                    "probabilities (e.g. wrap it in sklearn.calibration.CalibratedClassifierCV), "
                    "or score its predicted classes with an agreement metric "
                    f"({', '.join(get_scorer_names('agreement')[:4])}, ...)."
                )
            if classes is None:
                raise TypeError(
                    f"the estimator {type(estimator).__name__} has no classes_ attribute, so the "
                    "columns of its predict_proba cannot be matched to classes. Pass a fitted "
                    "classifier."
                )
            labels = self._resolve_labels(classes, y_true)
            proba = _align_proba(estimator.predict_proba(X), classes, labels)
            value = func(y_true, proba, labels=labels, sample_weight=sample_weight, **self.kwargs)
        value = float(value)
        return value if self.sign > 0 else 0.0 - value

    def __repr__(self) -> str:
        labels = None if self.labels is None else list(self.labels)
        options = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return (
            f"OrdinalScorer(metric={self.metric!r}, sign={self.sign}, "
            f"response_method={self.response_method!r}, labels={labels!r}{options})"
        )

    def set_score_request(self, *, sample_weight: bool | str | None) -> OrdinalScorer:
        """Request (or not) ``sample_weight`` under scikit-learn's metadata routing.

        Only used when routing is enabled with
        ``sklearn.set_config(enable_metadata_routing=True)``; then ``cross_validate(...,
        params={"sample_weight": w})`` passes the test part of ``w`` to the scorer only when
        it is requested. As for scikit-learn's own scorers, the default is None: weights
        passed but neither requested nor declined are an error.

        Parameters
        ----------
        sample_weight : bool, str or None
            True to receive the weights, False to ignore them, None to raise when they are
            passed, or a string: the name under which the caller passes them (an alias).

        Returns
        -------
        OrdinalScorer
            The scorer itself.
        """
        if not (sample_weight is None or isinstance(sample_weight, bool | str)):
            raise TypeError(
                "sample_weight must be True, False, None or an alias (a string); got "
                f"{type_name(sample_weight)} {sample_weight!r}."
            )
        self._sample_weight_request = sample_weight
        return self

    def get_metadata_routing(self) -> Any:
        """The metadata this scorer requests, for scikit-learn's metadata routing.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRequest
            ``sample_weight`` for the ``score`` method, as set by :meth:`set_score_request`.
        """
        _require_sklearn()
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=repr(self))
        request.score.add_request(param="sample_weight", alias=self._sample_weight_request)
        return request

    def _accept_sample_weight(self) -> bool:
        # Asked by scikit-learn when metadata routing is disabled (the searches' fit and
        # multi-metric scoring): the scorer always accepts sample_weight.
        return True

    # ----------------------------------------------------------------------------------------
    # Classes and labels
    # ----------------------------------------------------------------------------------------

    @staticmethod
    def _classes(estimator: Any) -> list[Any] | None:
        classes = getattr(estimator, "classes_", None)
        if classes is None:
            return None
        classes = np.asarray(classes)
        if classes.ndim != 1:
            raise ValueError(
                "the scorer supports single-output classifiers; estimator.classes_ has shape "
                f"{classes.shape}, a multi-output classifier."
            )
        return classes.tolist()

    def _resolve_labels(self, classes: list[Any] | None, *targets: Any) -> tuple[Hashable, ...]:
        """The labels in ordinal order: ``self.labels``, or the sorted integer classes."""
        if self.labels is not None:
            if classes is not None:
                known = set(self.labels)
                unknown = [c for c in classes if c not in known]
                if unknown:
                    raise ValueError(
                        f"estimator.classes_ holds {_fmt(unknown)}, not in labels="
                        f"{list(self.labels)!r}. labels must list every class the estimator "
                        "was trained on, in ordinal order: add the missing classes in their "
                        f"place, e.g. get_scorer({self.metric!r}, labels=[...])."
                    )
            return self.labels
        values: set[int] = set()
        if classes is not None:
            arr = np.asarray(classes, dtype=object)
            if not _is_integer_array(arr):
                raise ValueError(
                    f"estimator.classes_ is [{_fmt(classes)}], not integers, and labels= was "
                    "not given. ordmetrics never sorts non-integer classes, since their "
                    "ordinal order cannot be guessed: pass them in ordinal order, "
                    f"get_scorer({self.metric!r}, labels=[...])."
                )
            values.update(int(v) for v in classes)
        for target in targets:
            arr = np.asarray(target)
            if arr.dtype == object:
                arr = np.asarray(arr.tolist(), dtype=object)
            if arr.ndim == 1 and arr.size and _is_integer_array(arr):
                values.update(int(v) for v in np.unique(arr).tolist())
        if classes is None and not values:
            raise ValueError(
                f"the classes are not integers and labels= was not given, so their ordinal "
                f"order is unknown: pass get_scorer({self.metric!r}, labels=[...]) listing "
                "them in ordinal order."
            )
        return tuple(sorted(values))


def _align_proba(proba: Any, classes: list[Any], labels: tuple[Hashable, ...]) -> np.ndarray:
    """The columns of ``proba`` (one per class of ``classes``) moved to the order of ``labels``.

    A label that is not in ``classes`` gets a column of zeros.
    """
    P = np.asarray(proba, dtype=np.float64)
    if P.ndim != 2 or P.shape[1] != len(classes):
        raise ValueError(
            f"predict_proba must return one column per class of estimator.classes_ "
            f"({len(classes)}); got an array of shape {P.shape}."
        )
    position = {label: j for j, label in enumerate(labels)}
    out = np.zeros((P.shape[0], len(labels)), dtype=np.float64)
    out[:, [position[c] for c in classes]] = P
    return out


def get_scorer(name: str, *, labels: Any = None, **kwargs: Any) -> OrdinalScorer:
    """A scikit-learn scorer for the metric ``name``; losses are negated (greater is better).

    **Sign:** the scorer returns the metric as it is when the metric is maximized (``qwk``,
    ``accuracy``, ``c_index``, ...) and **negated** when it is minimized (``rps``,
    ``log_loss``, ``mae``, ``expected_cost``, ``ece``, ...), because scikit-learn always
    maximizes a score: a cross-validated ``get_scorer("rps")`` score of -0.12 is an RPS of
    0.12.

    Parameters
    ----------
    name : str
        A registered metric name (:func:`get_scorer_names` lists them).
    labels : sequence, optional
        The class labels in ordinal order, lowest first. The scorer moves the columns of
        ``predict_proba`` (ordered as ``estimator.classes_``) into this order; a label that
        the estimator never saw in training gets probability 0. Required when the classes are
        not integers (strings are never sorted); without it, integer classes are taken in
        increasing order. Recommended in cross-validation, so that every fold has the same
        classes even when a fold lacks one.
    **kwargs
        Options of the metric, passed on every call, e.g. ``normalize=False`` for ``rps``,
        ``costs="squared"`` for ``expected_cost``, ``weights="linear"`` for ``kappa``,
        ``n_bins=10`` for ``ece``.

    Returns
    -------
    OrdinalScorer
        Callable as ``scorer(estimator, X, y_true, sample_weight=None)``. Scoring rules,
        calibration and ranking metrics use ``estimator.predict_proba`` (ranking metrics rank
        by the expected grade); agreement metrics use ``estimator.predict``. Picklable, so it
        works with ``n_jobs > 1``.

    Raises
    ------
    ValueError
        For an unknown metric name or invalid labels.
    TypeError
        For an option the metric does not have.
    ImportError
        When scikit-learn is not installed.

    See Also
    --------
    ordmetrics.get_metric : the metric's direction, range and kind.

    Notes
    -----
    ``sample_weight`` reaches the scorer when it is called with it, from
    ``GridSearchCV(...).fit(X, y, sample_weight=w)`` (scikit-learn >= 1.7), and from
    ``cross_validate`` or any search with metadata
    routing enabled and ``scorer.set_score_request(sample_weight=True)``; see the module
    documentation.

    Examples
    --------
    A real data set with an ordinal target: the diabetes progression measure binned into four
    ordered classes by its quartiles.

    >>> import numpy as np
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import KFold, cross_val_score
    >>> from ordmetrics.sklearn import get_scorer
    >>> X, target = load_diabetes(return_X_y=True)
    >>> y = np.digitize(target, np.quantile(target, [0.25, 0.5, 0.75]))  # classes 0 < 1 < 2 < 3
    >>> scorer = get_scorer("rps")
    >>> scorer
    OrdinalScorer(metric='rps', sign=-1, response_method='predict_proba', labels=None)
    >>> scores = cross_val_score(LogisticRegression(), X, y, scoring=scorer, cv=KFold(3))
    >>> bool((scores < 0).all())  # negated RPS: greater is better
    True

    String classes need their ordinal order:

    >>> grades = np.array(["low", "mid", "high", "top"])[y]
    >>> model = LogisticRegression().fit(X, grades)
    >>> model.classes_.tolist()  # sorted alphabetically by scikit-learn
    ['high', 'low', 'mid', 'top']
    >>> scorer = get_scorer("qwk", labels=["low", "mid", "high", "top"])
    >>> round(scorer(model, X, grades), 3)
    0.567
    """
    return OrdinalScorer(name, labels=labels, **kwargs)
