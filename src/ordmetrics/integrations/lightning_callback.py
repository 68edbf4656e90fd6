"""The Lightning callback of :mod:`ordmetrics.integrations.callbacks`.

``LightningOrdmetricsCallback`` logs ordmetrics metrics on the validation outputs of a
LightningModule every epoch; the class is created on first access of
``ordmetrics.callbacks.LightningOrdmetricsCallback``, which imports Lightning then. What it
shares with the Keras callback (the metric set, the logged names, the computation) is in
:mod:`ordmetrics.integrations.callback_metrics`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from ordmetrics._core.validation import type_name
from ordmetrics.integrations.callback_metrics import (
    _COMMON_ATTRS,
    _COMMON_PARAMS,
    _Metrics,
    check_targets,
    check_weights,
)

__all__ = ["make_lightning_callback"]


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
Probabilities in half precision (``torch.float16``, ``torch.bfloat16``, as ``.half()`` or
autocast give them) must sum to 1 within ``4 K eps`` of their dtype (0.0195 for float16, 0.156
for bfloat16 with K = 5), not within the 1e-6 of float64; each batch is then converted to
float64 and its rows divided by their sums before the metrics see them.
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


def _to_numpy(value: Any, key: str, where: str) -> tuple[np.ndarray, float | None]:
    """The values as a NumPy array, and the machine epsilon of a half-precision tensor.

    Half precision is converted to float64 (exactly; NumPy has no bfloat16), and its epsilon
    returned, so that its rows are held to the tolerance of the precision they were computed
    in rather than to that of float64.
    """
    import torch

    if isinstance(value, torch.Tensor):
        t = value.detach()
        eps = None
        if t.dtype in (torch.float16, torch.bfloat16):
            eps = float(torch.finfo(t.dtype).eps)
            t = t.double()
        return t.cpu().numpy(), eps
    try:
        return np.asarray(value), None
    except Exception:  # pragma: no cover - np.asarray accepts almost anything
        raise TypeError(f"validation_step's {key!r} could not be read{where}.") from None


def make_lightning_callback() -> type:
    """The class ``LightningOrdmetricsCallback``, created now (importing Lightning)."""
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
            renormalize: bool = False,
        ) -> None:
            super().__init__()
            self._metrics = _Metrics(
                metrics,
                labels,
                prefix,
                decision,
                renormalize=renormalize,
                owner="LightningOrdmetricsCallback",
                logits_hint="return them as 'logits' from validation_step instead of 'proba'",
            )
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
                P, eps = _to_numpy(outputs["proba"], "proba", where)
            else:
                logits = outputs["logits"]
                if self.to_proba is None:
                    if not isinstance(logits, torch.Tensor):
                        logits = torch.as_tensor(np.asarray(logits))
                    proba = torch.softmax(logits.detach().to("cpu", torch.float64), dim=1)
                else:
                    proba = self.to_proba(logits.detach())
                P, eps = _to_numpy(proba, "logits", where)
            y, _ = _to_numpy(outputs["target"], "target", where)
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
            if P.shape[1] >= 2:  # fewer classes: compute() says what the shape must be
                P = self._metrics.probabilities(P, where, eps)
            check_targets(y, "validation_step's 'target'", where)
            self._proba.append(P)
            self._target.append(y)
            if "sample_weight" in outputs and outputs["sample_weight"] is not None:
                w, _ = _to_numpy(outputs["sample_weight"], "sample_weight", where)
                name = "validation_step's 'sample_weight'"
                self._weight.append(check_weights(w.reshape(-1), y.shape[0], name, where))
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
    LightningOrdmetricsCallback.__module__ = "ordmetrics.integrations.callbacks"
    LightningOrdmetricsCallback.__qualname__ = "LightningOrdmetricsCallback"
    return LightningOrdmetricsCallback
