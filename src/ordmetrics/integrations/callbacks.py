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

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from ordmetrics._core.registry import (
    MetricSpec,
    get_metric,
)
from ordmetrics._core.validation import (
    check_flag,
    check_option,
    type_name,
)
from ordmetrics.io.frames import (
    _DECISION_KINDS,
    MetricEntry,
    MetricSet,
    _as_metric_set,
)
from ordmetrics.metrics.decisions import (
    RULES,
    decide,
)

__all__ = ["monitor_mode"]
# KerasOrdmetricsCallback and LightningOrdmetricsCallback are created on first access (see
# __getattr__), so that this module imports neither framework; they are left out of __all__
# so that ``from ordmetrics.callbacks import *`` does not import both.


def monitor_mode(metric: str | MetricSpec | MetricEntry) -> Literal["min", "max"]:
    """The ``mode`` for EarlyStopping / ModelCheckpoint that monitor a metric: "min" or "max".

    Parameters
    ----------
    metric : str, MetricSpec or MetricEntry
        A registered metric name (``"rps"``, not the logged name ``"val_rps"``), its spec, or an
        entry of a :func:`~ordmetrics.metric_set`.

    Returns
    -------
    {"min", "max"}
        ``"min"`` for metrics with ``get_metric(name).direction == "minimize"`` (the scoring
        rules, costs, errors, calibration errors), ``"max"`` for those that are maximized
        (``qwk``, ``kappa``, ``accuracy``, ``c_index``, ...).

    Raises
    ------
    ValueError
        For an unknown metric name.

    Examples
    --------
    >>> from ordmetrics.callbacks import monitor_mode
    >>> monitor_mode("rps"), monitor_mode("c_index")
    ('min', 'max')
    """
    if isinstance(metric, MetricEntry):
        direction = metric.direction
    else:
        try:
            direction = get_metric(metric).direction
        except ValueError as exc:
            if isinstance(metric, str) and "_" in metric:
                rest = metric.split("_", 1)[1]
                try:
                    get_metric(rest)
                except ValueError:
                    raise exc from None
                raise ValueError(
                    f"{exc} monitor_mode takes the metric's registry name: for the logged "
                    f"name {metric!r} pass {rest!r}, or read callback.modes[{metric!r}]."
                ) from None
            raise
    return "min" if direction == "minimize" else "max"


# --------------------------------------------------------------------------------------------
# What both callbacks share: the metric set, the logged names, the computation
# --------------------------------------------------------------------------------------------


class _Metrics:
    """The metrics of a callback, their logged names and modes, and their computation."""

    def __init__(self, metrics: Any, labels: Any, prefix: Any, decision: Any) -> None:
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a string, e.g. 'val_'; got {type_name(prefix)}.")
        check_option(decision, "decision", RULES)
        # a MetricEntry accepts only metrics computable from probabilities or decisions
        self.metric_set: MetricSet = _as_metric_set(metrics)
        self.labels = None if labels is None else list(labels)
        self.prefix = prefix
        self.decision = decision
        self.names: tuple[str, ...] = tuple(prefix + n for n in self.metric_set.names)
        self.modes: dict[str, Literal["min", "max"]] = {
            name: monitor_mode(e) for name, e in zip(self.names, self.metric_set, strict=True)
        }

    def __getstate__(self) -> dict[str, Any]:
        # the entries' options are read-only mappings, which do not pickle: store plain data
        entries = [(e.metric, dict(e.options), e.name) for e in self.metric_set]
        return {
            "entries": entries,
            "labels": self.labels,
            "prefix": self.prefix,
            "decision": self.decision,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        _Metrics.__init__(
            self, state["entries"], state["labels"], state["prefix"], state["decision"]
        )

    def compute(self, y: Any, P: np.ndarray, w: Any, where: str) -> dict[str, float]:
        """Every metric of the set on (y, P, w); ``where`` goes into the note of an error."""
        P = np.asarray(P)
        if P.ndim != 2 or P.shape[1] < 2:
            raise ValueError(
                f"the predictions must have shape (n_samples, n_classes) with at least 2 "
                f"classes, one probability column per class in ordinal order; got shape "
                f"{P.shape}{where}. A binary model with one sigmoid output must output "
                "[1 - p, p] instead."
            )
        k = P.shape[1]
        agreement_labels = self.labels if self.labels is not None else list(range(k))
        preds: dict[str, np.ndarray] = {}
        out: dict[str, float] = {}
        for entry, name in zip(self.metric_set, self.names, strict=True):
            spec = entry.spec
            options = dict(entry.options)
            try:
                if spec.kind in _DECISION_KINDS:
                    rule = options.pop("decision", self.decision)
                    if rule not in preds:
                        preds[rule] = decide(P, rule, labels=self.labels)
                    value = spec.func(
                        y, preds[rule], labels=agreement_labels, sample_weight=w, **options
                    )
                else:
                    value = spec.func(y, P, labels=self.labels, sample_weight=w, **options)
            except Exception as exc:
                note = getattr(exc, "add_note", None)
                if note is not None:
                    note(f"(raised by the ordmetrics callback computing {name!r}{where})")
                raise
            arr = np.asarray(value)
            if arr.ndim != 0:
                raise TypeError(
                    f"metric {entry.name!r} returned an array of shape {arr.shape}, not one "
                    "number; check its options (e.g. reduction)."
                )
            out[name] = float(arr)
        return out


def _softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax in float64 (max-shifted, so large logits do not overflow)."""
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


_COMMON_PARAMS = """\
    metrics : list or MetricSet, optional
        What to compute, as in :func:`ordmetrics.evaluate`: registered metric names,
        ``(name, options)`` pairs or ``(name, options, display_name)`` triples, entries and
        sets of :func:`~ordmetrics.metric_set`. Each is logged as ``prefix + display_name``;
        give a metric with options a display name fit for ``monitor=`` (e.g.
        ``("expected_cost", {"costs": "squared"}, "ec2")`` is logged as ``val_ec2``). The
        default is :data:`~ordmetrics.DEFAULT_METRICS` (the six scoring rules, ``qwk``,
        ``expected_cost``, ``c_index``, ``ece``).
    labels : sequence, optional
        The class of each probability column, in ordinal order, when the targets are not the
        class indices ``0..K-1``.
    prefix : str, default "val_"
        Put before every metric name to make the logged name (``val_rps``).
    decision : {"argmax", "median", "expected", "min_cost"}, default "argmax"
        The :func:`~ordmetrics.decide` rule giving the predicted classes of the agreement
        metrics (``qwk``, ``expected_cost``, ...), unless a metric entry fixes its own
        ``decision``."""

_COMMON_ATTRS = """\
    names : tuple of str
        The logged names, in the order of ``metrics``.
    modes : dict of str to {"min", "max"}
        The ``mode`` of each logged name (from :func:`monitor_mode`), for
        ``EarlyStopping(monitor=name, mode=callback.modes[name])``.
    history : dict of str to list of float
        The exact float64 value of every logged name after every validation run.
    epochs : list of int
        The (0-based) epoch of each entry of ``history``."""


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
    Passed to ``model.predict``.

Attributes
----------
%(attrs)s

Raises
------
ValueError
    At construction, for an unknown metric, option or ``decision``, or a malformed
    ``validation_data``; at the end of an epoch, for predictions that are not one
    probability row per sample (the error says which metric and epoch), or if ``logs``
    already holds a logged name (a compiled metric of the same name: choose another
    ``prefix``).

Notes
-----
The model's output must have one column per class in ordinal order. Predictions in float32
(the usual Keras output) are accepted with the row-sum tolerance of the scoring rules for
float32; the metrics are computed as for NumPy input.

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
    w = None if not rest or rest[0] is None else np.asarray(rest[0], dtype=np.float64)
    return x, y, w


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
        ) -> None:
            super().__init__()
            self._metrics = _Metrics(metrics, labels, prefix, decision)
            self._x, self._y, self._w = _check_validation_data(validation_data)
            self.from_logits = check_flag(from_logits, "from_logits")
            self.batch_size = batch_size
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


# --------------------------------------------------------------------------------------------
# Lightning
# --------------------------------------------------------------------------------------------

_LIGHTNING_DOC = """Lightning callback: ordmetrics metrics on validation outputs, as ``val_<name>``.

It collects the validation predictions from what the LightningModule's ``validation_step``
returns, and at the end of every validation epoch computes each metric with ordmetrics and logs
it with ``pl_module.log(prefix + name, value, on_epoch=True)``, so that
``lightning.pytorch.callbacks.ModelCheckpoint(monitor="val_rps", mode="min")`` and
``EarlyStopping(monitor="val_rps", mode="min")`` see it (Lightning runs them after the
validation epoch has ended), as do the loggers and ``trainer.callback_metrics``.

**What validation_step must return**: a dict with

* ``"target"``: the true classes of the batch, shape (batch,), a tensor of class indices
  ``0..K-1`` (or values of ``labels``);
* ``"proba"``: the predicted probabilities, shape (batch, K), classes in ordinal order; or
  ``"logits"``, shape (batch, K), turned into probabilities by ``to_proba`` (by default a
  softmax over dimension 1, computed in float64). When both are present ``"proba"`` is used;
* optionally ``"sample_weight"``: frequency weights, shape (batch,).

Other keys (``"loss"``, ...) are ignored. Everything is detached and copied to the CPU batch
by batch; the metrics are computed once per epoch on all validation rows, not averaged over
batches. Only the validation dataloader ``dataloader_idx`` is collected. During Lightning's
sanity check the outputs are checked but nothing is logged.

Parameters
----------
%(common)s
to_proba : callable, optional
    Turns the ``"logits"`` tensor of a batch into probabilities (e.g. the link of a
    cumulative model); the default is ``torch.softmax(logits.double(), dim=1)``.
dataloader_idx : int, default 0
    Which validation dataloader to collect.
prog_bar : bool, default False
    Show the logged values in the progress bar.

Attributes
----------
%(attrs)s

Raises
------
TypeError
    During validation, if ``validation_step`` returns anything but a dict with the keys above.
ValueError
    At construction, for an unknown metric, option or ``decision``; during validation, for
    invalid predictions or targets (the error says which metric and epoch).
RuntimeError
    When the trainer runs several processes (``world_size > 1``): each would see only its
    share of the validation data, and the metrics of the parts are not the metric of the
    whole. Validate on one device.

Notes
-----
The values are logged as float64 tensors on the CPU, so ``trainer.callback_metrics`` and a
``ModelCheckpoint``'s ``best_model_score`` hold exactly the values of ``history``.
``history`` and ``epochs`` are the callback's state in Lightning checkpoints (restored when
training resumes from one).
Requires the ``lightning`` package (``lightning.pytorch``); the standalone
``pytorch_lightning`` package has its own Callback class and is not supported.

Examples
--------
>>> import lightning as L  # doctest: +SKIP
>>> from ordmetrics.callbacks import LightningOrdmetricsCallback  # doctest: +SKIP
>>> class Net(L.LightningModule):  # doctest: +SKIP
...     def validation_step(self, batch, batch_idx):
...         x, y = batch
...         return {"logits": self(x), "target": y}
>>> metrics = LightningOrdmetricsCallback(["rps", "pbs", "qwk"])  # doctest: +SKIP
>>> best = L.pytorch.callbacks.ModelCheckpoint(monitor="val_rps", mode="min")  # doctest: +SKIP
>>> L.Trainer(callbacks=[metrics, best]).fit(Net(), train_dl, val_dl)  # doctest: +SKIP
"""


def _import_lightning() -> Any:
    try:
        import lightning.pytorch as pl
    except ImportError as exc:
        raise ImportError(
            "ordmetrics.callbacks.LightningOrdmetricsCallback needs Lightning (the `lightning` "
            "package), which is not installed. Install it with "
            "`pip install ordmetrics[lightning]`."
        ) from exc
    return pl


def _to_numpy(value: Any, key: str, where: str) -> np.ndarray:
    import torch

    if isinstance(value, torch.Tensor):
        t = value.detach()
        if t.dtype in (torch.float16, torch.bfloat16):
            t = t.float()  # exact; NumPy has no bfloat16
        return t.cpu().numpy()
    try:
        return np.asarray(value)
    except Exception:  # pragma: no cover - np.asarray accepts almost anything
        raise TypeError(f"validation_step's {key!r} could not be read{where}.") from None


def _make_lightning_callback() -> type:
    pl = _import_lightning()
    import torch

    class LightningOrdmetricsCallback(pl.callbacks.Callback):  # type: ignore[name-defined]
        def __init__(
            self,
            metrics: Any = None,
            *,
            labels: Sequence[Any] | None = None,
            prefix: str = "val_",
            decision: str = "argmax",
            to_proba: Callable[[torch.Tensor], Any] | None = None,
            dataloader_idx: int = 0,
            prog_bar: bool = False,
        ) -> None:
            super().__init__()
            self._metrics = _Metrics(metrics, labels, prefix, decision)
            if to_proba is not None and not callable(to_proba):
                raise TypeError(f"to_proba must be callable; got {type_name(to_proba)}.")
            if isinstance(dataloader_idx, bool) or not isinstance(dataloader_idx, int):
                raise TypeError(f"dataloader_idx must be an int; got {type_name(dataloader_idx)}.")
            self.to_proba = to_proba
            self.dataloader_idx = dataloader_idx
            self.prog_bar = bool(prog_bar)
            self.history: dict[str, list[float]] = {n: [] for n in self._metrics.names}
            self.epochs: list[int] = []
            self._reset()

        @property
        def names(self) -> tuple[str, ...]:
            return self._metrics.names

        @property
        def modes(self) -> dict[str, Literal["min", "max"]]:
            return dict(self._metrics.modes)

        @property
        def state_key(self) -> str:
            # several instances (other metrics or prefixes) may be saved in one checkpoint
            return self._generate_state_key(prefix=self._metrics.prefix, names=self.names)

        def _reset(self) -> None:
            self._proba: list[np.ndarray] = []
            self._target: list[np.ndarray] = []
            self._weight: list[np.ndarray] = []

        def setup(self, trainer: Any, pl_module: Any, stage: str) -> None:
            if trainer.world_size > 1:
                raise RuntimeError(
                    f"LightningOrdmetricsCallback computes the metrics on all validation rows "
                    f"in one process, but this trainer runs {trainer.world_size} processes, "
                    "each seeing only part of the validation data. Validate on one device "
                    "(e.g. a separate Trainer(devices=1).validate(...))."
                )

        def on_validation_epoch_start(self, trainer: Any, pl_module: Any) -> None:
            self._reset()

        def on_validation_batch_end(
            self,
            trainer: Any,
            pl_module: Any,
            outputs: Any,
            batch: Any,
            batch_idx: int,
            dataloader_idx: int = 0,
        ) -> None:
            if dataloader_idx != self.dataloader_idx:
                return
            where = f" (validation batch {batch_idx})"
            if (
                not isinstance(outputs, Mapping)
                or "target" not in outputs
                or not ("proba" in outputs or "logits" in outputs)
            ):
                got = (
                    f"a dict with keys {sorted(map(str, outputs))}"
                    if isinstance(outputs, Mapping)
                    else type_name(outputs)
                )
                raise TypeError(
                    "LightningOrdmetricsCallback needs validation_step to return a dict with "
                    "'target' (true classes) and 'proba' (probabilities, shape (batch, K)) or "
                    f"'logits' (turned into probabilities by to_proba); got {got}{where}."
                )
            if "proba" in outputs:
                P = _to_numpy(outputs["proba"], "proba", where)
            else:
                logits = outputs["logits"]
                if self.to_proba is None:
                    if not isinstance(logits, torch.Tensor):
                        logits = torch.as_tensor(np.asarray(logits))
                    proba = torch.softmax(logits.detach().to("cpu", torch.float64), dim=1)
                else:
                    proba = self.to_proba(logits.detach())
                P = _to_numpy(proba, "logits", where)
            y = _to_numpy(outputs["target"], "target", where)
            if y.ndim == 2 and y.shape[1] == 1:
                y = y[:, 0]
            if P.ndim != 2 or y.ndim != 1 or P.shape[0] != y.shape[0]:
                raise ValueError(
                    "validation_step must return probabilities (or logits) of shape (batch, K) "
                    f"and targets of shape (batch,); got {P.shape} and {y.shape}{where}."
                )
            if self._proba and P.shape[1] != self._proba[0].shape[1]:
                raise ValueError(
                    f"validation batches disagree on the number of classes: "
                    f"{self._proba[0].shape[1]} and {P.shape[1]}{where}."
                )
            self._proba.append(P)
            self._target.append(y)
            if "sample_weight" in outputs and outputs["sample_weight"] is not None:
                w = _to_numpy(outputs["sample_weight"], "sample_weight", where)
                self._weight.append(np.asarray(w, dtype=np.float64).reshape(-1))
            elif self._weight:
                raise ValueError(
                    f"validation_step returned 'sample_weight' for some batches only{where}."
                )

        def on_validation_epoch_end(self, trainer: Any, pl_module: Any) -> None:
            if trainer.sanity_checking or not self._proba:
                self._reset()
                return
            if self._weight and len(self._weight) != len(self._proba):
                raise ValueError("validation_step returned 'sample_weight' for some batches only.")
            P = np.concatenate(self._proba, axis=0)
            y = np.concatenate(self._target, axis=0)
            w = np.concatenate(self._weight) if self._weight else None
            self._reset()
            epoch = int(trainer.current_epoch)
            values = self._metrics.compute(y, P, w, f" at epoch {epoch}")
            for name, value in values.items():
                pl_module.log(
                    name,
                    torch.tensor(value, dtype=torch.float64),
                    on_step=False,
                    on_epoch=True,
                    prog_bar=self.prog_bar,
                    batch_size=1,
                )
                self.history[name].append(value)
            self.epochs.append(epoch)

        def state_dict(self) -> dict[str, Any]:
            return {
                "history": {k: list(v) for k, v in self.history.items()},
                "epochs": list(self.epochs),
            }

        def load_state_dict(self, state_dict: dict[str, Any]) -> None:
            self.history = {k: list(v) for k, v in state_dict["history"].items()}
            self.epochs = list(state_dict["epochs"])

    LightningOrdmetricsCallback.__doc__ = _LIGHTNING_DOC.replace(
        "%(common)s", _COMMON_PARAMS.replace("\n    ", "\n").strip()
    ).replace("%(attrs)s", _COMMON_ATTRS.replace("\n    ", "\n").strip())
    LightningOrdmetricsCallback.__module__ = __name__
    LightningOrdmetricsCallback.__qualname__ = "LightningOrdmetricsCallback"
    return LightningOrdmetricsCallback


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
