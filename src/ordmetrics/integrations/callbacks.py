"""Keras and PyTorch Lightning callbacks: ordmetrics metrics on validation data every epoch.

Checkpointing and early stopping by a validation metric (Ahmadian et al., Sect. 5) need the
metric in the place where the framework's own callbacks look for it. The callbacks of this
module compute chosen ordmetrics metrics on the validation predictions at the end of every
epoch, with the core functions of ordmetrics, and log each under ``prefix + name`` (by default
``val_rps``, ``val_pbs``, ``val_qwk``, ...):

* :class:`KerasOrdmetricsCallback` (Keras 3, any backend) predicts the validation data itself
  and writes the values into the epoch's ``logs``, where ``keras.callbacks.EarlyStopping``,
  ``ModelCheckpoint`` and ``History`` read them;
* :class:`LightningOrdmetricsCallback` (Lightning 2, package ``lightning``) collects what the
  ``validation_step`` of the LightningModule returns and logs the values with
  ``pl_module.log``, where ``lightning.pytorch.callbacks.ModelCheckpoint`` and
  ``EarlyStopping`` read them.

Which way is better, ``mode="min"`` or ``mode="max"``, is a property of each metric in the
registry: :func:`monitor_mode` reads it (``get_metric(name).direction``), and each callback's
``modes`` maps its logged names to it::

    EarlyStopping(monitor="val_rps", mode=monitor_mode("rps"))          # "min"
    ModelCheckpoint(monitor="val_qwk", mode=monitor_mode("qwk"))        # "max"

Every value is one call of the metric's public function (``ordmetrics.rps(y_val, proba,
...)``; agreement metrics such as ``qwk`` get ``ordmetrics.decide(proba, decision)``), exactly
as :func:`ordmetrics.evaluate` computes it, so a logged value can be recomputed from the saved
predictions. The exact float64 values are also kept in each callback's ``history``.

Keras and Lightning are optional dependencies (``pip install ordmetrics[keras]``,
``pip install ordmetrics[lightning]``). Importing this module imports neither: each callback
class is created on first access (``from ordmetrics.callbacks import
KerasOrdmetricsCallback``), which imports its framework, or raises an :class:`ImportError`
that names the extra. Keras 3 picks its backend when it is first imported: to use PyTorch, set
``os.environ["KERAS_BACKEND"] = "torch"`` before anything imports keras (or set
``"backend"`` in ``~/.keras/keras.json``).

Examples
--------
>>> from ordmetrics.callbacks import monitor_mode
>>> monitor_mode("rps"), monitor_mode("pbs"), monitor_mode("qwk")
('min', 'min', 'max')
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from ordmetrics._core.params import Interval, check_param
from ordmetrics._core.validation import (
    check_flag,
    type_name,
)
from ordmetrics.integrations.callback_metrics import (
    _COMMON_ATTRS,
    _COMMON_PARAMS,
    _Metrics,
    _softmax,
    check_targets,
    check_weights,
    monitor_mode,
)

__all__ = ["monitor_mode"]
# KerasOrdmetricsCallback and LightningOrdmetricsCallback are created on first access (see
# __getattr__), so that this module imports neither framework; they are left out of __all__
# so that ``from ordmetrics.callbacks import *`` does not import both.


# --------------------------------------------------------------------------------------------
# Keras
# --------------------------------------------------------------------------------------------

_KERAS_DOC = """Keras 3 callback: ordmetrics metrics on validation data, logged as ``val_<name>``.

At the end of every epoch it predicts ``X_val`` with ``model.predict``, computes each metric
with ordmetrics against ``y_val``, and writes the value into the epoch's ``logs`` under
``prefix + name``. Callbacks that come **after** it in the ``callbacks`` list see the values:
``keras.callbacks.EarlyStopping(monitor="val_rps", mode="min")``, ``ModelCheckpoint``, and
the ``History`` that ``fit`` returns (which Keras always runs last). Put it first.

Parameters
----------
validation_data : tuple
    ``(X_val, y_val)`` or ``(X_val, y_val, sample_weight)``. ``X_val`` is anything
    ``model.predict`` accepts; ``y_val`` holds the true classes (class indices ``0..K-1``, or
    the values of ``labels``); ``sample_weight`` optional frequency weights.
%(common)s
from_logits : bool, default False
    Whether the model outputs logits (a softmax, computed in float64, is applied) rather than
    probabilities (a final softmax layer).
batch_size : int, optional
    Passed to ``model.predict``; a positive int (checked at construction).

Attributes
----------
%(attrs)s

Raises
------
ValueError
    At construction, for an unknown metric, option or ``decision``, a ``batch_size`` below 1,
    or a malformed ``validation_data`` (no samples, missing true classes, weights that are
    negative, NaN or infinite, lengths that disagree); at the end of an epoch, for
    predictions that are not one probability row per sample (the error says which metric
    and epoch), or if ``logs`` already holds a logged name (a compiled metric of the same
    name: choose another ``prefix``).
TypeError
    At construction, for weights given as text or a ``batch_size`` that is not an int.

Notes
-----
The model's output must have one column per class in ordinal order. Predictions in float32
(the usual Keras output) are accepted with the row-sum tolerance of the scoring rules for
float32; the metrics are computed as for NumPy input. Under a mixed-precision policy
(``mixed_float16``, ``mixed_bfloat16``) the model outputs half precision: its rows must sum
to 1 within ``4 K eps`` of that precision (0.0195 for float16, 0.156 for bfloat16 with K = 5;
a softmax rounded to it is off by about ``(K + 2) eps / 2`` at most), and are then converted
to float64 and divided by their sums before the metrics see them.

Examples
--------
>>> import os
>>> os.environ.setdefault("KERAS_BACKEND", "torch")  # doctest: +SKIP
>>> import keras  # doctest: +SKIP
>>> from ordmetrics.callbacks import KerasOrdmetricsCallback, monitor_mode  # doctest: +SKIP
>>> metrics = KerasOrdmetricsCallback((X_val, y_val), ["rps", "pbs", "qwk"])  # doctest: +SKIP
>>> stop = keras.callbacks.EarlyStopping(
...     monitor="val_rps", mode=monitor_mode("rps"), patience=10, restore_best_weights=True
... )  # doctest: +SKIP
>>> model.fit(X, y, epochs=200, callbacks=[metrics, stop])  # doctest: +SKIP
>>> metrics.history["val_rps"][stop.best_epoch]  # doctest: +SKIP
"""


def _import_keras() -> Any:
    try:
        import keras
    except ImportError as exc:
        if getattr(exc, "name", None) == "keras":
            raise ImportError(
                "ordmetrics.callbacks.KerasOrdmetricsCallback needs Keras 3, which is not "
                "installed. Install it with `pip install ordmetrics[keras]` (and a backend: "
                "torch, jax or tensorflow)."
            ) from exc
        raise ImportError(
            f"importing keras failed: {exc}. Keras 3 needs one of its backends (tensorflow, "
            "jax, torch); choose an installed one before keras is first imported, e.g. "
            "os.environ['KERAS_BACKEND'] = 'torch'."
        ) from exc
    version = getattr(keras, "__version__", "0")
    if int(version.split(".")[0]) < 3:
        raise ImportError(
            f"ordmetrics.callbacks.KerasOrdmetricsCallback needs Keras 3; keras {version} is "
            "installed. Upgrade with `pip install ordmetrics[keras]`."
        )
    return keras


def _check_validation_data(validation_data: Any) -> tuple[Any, Any, Any]:
    if not isinstance(validation_data, tuple | list) or len(validation_data) not in (2, 3):
        raise ValueError(
            "validation_data must be a tuple (X_val, y_val) or (X_val, y_val, sample_weight); "
            f"got {type_name(validation_data)}"
            + (
                f" of length {len(validation_data)}"
                if isinstance(validation_data, tuple | list)
                else ""
            )
            + "."
        )
    x, y, *rest = validation_data
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            f"y_val must hold one true class per sample, shape (n_samples,); got shape "
            f"{y.shape}. One-hot targets: pass y.argmax(axis=1)."
        )
    n_x = _rows_of(x)
    if y.size == 0 or n_x == 0:
        # model.predict on no data fails inside Keras with an UnboundLocalError
        rows = "" if n_x is None else f"X_val has {n_x} rows, "
        raise ValueError(
            f"validation_data holds no samples ({rows}y_val {y.size} true classes); the "
            "metrics need at least one validation sample. Pass the held-out data as "
            "validation_data=(X_val, y_val)."
        )
    if n_x is not None and n_x != y.size:
        raise ValueError(
            f"validation_data: X_val has {n_x} rows but y_val {y.size} true classes; pass "
            "one true class per sample."
        )
    check_targets(y, "y_val", "")
    if not rest or rest[0] is None:
        return x, y, None
    return x, y, check_weights(rest[0], y.size, "sample_weight of validation_data", "")


def _rows_of(x: Any) -> int | None:
    """The number of rows of an array-like ``X_val``; None for other inputs (datasets, dicts).

    Only an object with a ``shape`` is read: the length of a Keras ``PyDataset`` or a
    generator is a number of batches, not of samples.
    """
    shape = getattr(x, "shape", None)
    try:
        return int(shape[0]) if shape is not None and len(shape) >= 1 else None
    except (TypeError, IndexError):
        return None


_BATCH_SIZE = [None, Interval(numbers.Integral, 1, None, closed="left")]


def _make_keras_callback() -> type:
    keras = _import_keras()

    class KerasOrdmetricsCallback(keras.callbacks.Callback):  # type: ignore[name-defined]
        def __init__(
            self,
            validation_data: tuple[Any, ...],
            metrics: Any = None,
            *,
            labels: Sequence[Any] | None = None,
            prefix: str = "val_",
            decision: str = "argmax",
            from_logits: bool = False,
            batch_size: int | None = None,
            renormalize: bool = False,
        ) -> None:
            super().__init__()
            self._metrics = _Metrics(
                metrics,
                labels,
                prefix,
                decision,
                renormalize=renormalize,
                owner="KerasOrdmetricsCallback",
                logits_hint="pass from_logits=True to KerasOrdmetricsCallback",
            )
            self._x, self._y, self._w = _check_validation_data(validation_data)
            self.from_logits = check_flag(from_logits, "from_logits")
            self.batch_size = check_param(batch_size, "batch_size", _BATCH_SIZE)
            self.history: dict[str, list[float]] = {n: [] for n in self._metrics.names}
            self.epochs: list[int] = []

        @property
        def names(self) -> tuple[str, ...]:
            return self._metrics.names

        @property
        def modes(self) -> dict[str, Literal["min", "max"]]:
            return dict(self._metrics.modes)

        def compute(self) -> dict[str, float]:
            """Predict the validation data now and return the metrics by logged name."""
            return self._compute("")

        def _compute(self, where: str) -> dict[str, float]:
            out = self.model.predict(self._x, batch_size=self.batch_size, verbose=0)
            if isinstance(out, list | tuple | Mapping):
                raise ValueError(
                    f"the model has several outputs ({type_name(out)}){where}; "
                    "KerasOrdmetricsCallback needs one output of class probabilities."
                )
            P = np.asarray(keras.ops.convert_to_numpy(out))
            if P.ndim == 2 and P.shape[0] != self._y.shape[0]:
                raise ValueError(
                    f"model.predict gave {P.shape[0]} rows for {self._y.shape[0]} targets of "
                    f"y_val{where}."
                )
            if self.from_logits and P.ndim == 2:
                P = _softmax(P)
            return self._metrics.compute(self._y, P, self._w, where)

        def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
            values = self._compute(f" at epoch {epoch}")
            if logs is not None:
                clash = [n for n in values if n in logs]
                if clash:
                    raise ValueError(
                        f"the epoch's logs already hold {clash[0]!r} (a metric compiled into "
                        "the model?); KerasOrdmetricsCallback will not overwrite it. Pass "
                        "another prefix, e.g. prefix='val_om_'."
                    )
                logs.update(values)
            for name, value in values.items():
                self.history[name].append(value)
            self.epochs.append(int(epoch))

    KerasOrdmetricsCallback.__doc__ = _KERAS_DOC.replace(
        "%(common)s", _COMMON_PARAMS.replace("\n    ", "\n").strip()
    ).replace("%(attrs)s", _COMMON_ATTRS.replace("\n    ", "\n").strip())
    KerasOrdmetricsCallback.__module__ = __name__
    KerasOrdmetricsCallback.__qualname__ = "KerasOrdmetricsCallback"
    return KerasOrdmetricsCallback


def _make_lightning_callback() -> type:
    """The Lightning callback class (see :mod:`ordmetrics.integrations.lightning_callback`)."""
    from ordmetrics.integrations.lightning_callback import make_lightning_callback

    return make_lightning_callback()


_FACTORIES: dict[str, Callable[[], type]] = {
    "KerasOrdmetricsCallback": _make_keras_callback,
    "LightningOrdmetricsCallback": _make_lightning_callback,
}


def __getattr__(name: str) -> Any:
    """Create a callback class on first access, importing its framework then."""
    factory = _FACTORIES.get(name)
    if factory is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    cls = factory()
    globals()[name] = cls
    return cls
