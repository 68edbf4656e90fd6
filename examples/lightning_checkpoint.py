"""Checkpointing and early stopping of a Lightning model by the validation RPS and PBS.

The Ahmadian et al. use case (Sect. 5) with PyTorch Lightning:
:class:`ordmetrics.callbacks.LightningOrdmetricsCallback` collects what ``validation_step``
returns (``{"logits": ..., "target": ...}``), computes the RPS, the penalized Brier score (PBS)
and QWK on all validation rows at the end of every validation epoch, and logs them as
``val_rps``, ``val_pbs`` and ``val_qwk``. Two ``ModelCheckpoint`` callbacks keep the epoch
with the lowest ``val_rps`` and the one with the lowest ``val_pbs``; ``EarlyStopping`` stops
when ``val_rps`` has not improved for ``patience`` epochs. The chosen epochs are checked
against :func:`ordmetrics.select_epoch` on the same values, and both checkpoints are scored
on the test set.

Data: scikit-learn's bundled diabetes data set, its disease-progression target binned at its
quintiles into 5 ordered grades (no download); split 60/20/20 into train, validation, test.

Run: ``python examples/lightning_checkpoint.py`` (about 15 s on 2 CPUs); ``--quick`` for a
smoke test.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
import warnings

import lightning as L
import numpy as np
import torch
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset

import ordmetrics
from ordmetrics.callbacks import LightningOrdmetricsCallback

N_CLASSES = 5


def load_splits(seed: int) -> tuple[torch.Tensor, ...]:
    """Train, validation and test splits (60/20/20) of the binned diabetes data."""
    X, target = load_diabetes(return_X_y=True)
    edges = np.quantile(target, np.linspace(0, 1, N_CLASSES + 1)[1:-1])
    y = np.searchsorted(edges, target, side="right").astype(np.int64)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=seed)
    X_tr, X_va, y_tr, y_va = train_test_split(
        X_tr, y_tr, test_size=0.25, stratify=y_tr, random_state=seed
    )
    scaler = StandardScaler().fit(X_tr)
    out = []
    for X_part, y_part in ((X_tr, y_tr), (X_va, y_va), (X_te, y_te)):
        out += [
            torch.as_tensor(scaler.transform(X_part), dtype=torch.float32),
            torch.as_tensor(y_part),
        ]
    return tuple(out)


class OrdinalMLP(L.LightningModule):
    """A one-hidden-layer MLP trained with cross-entropy."""

    def __init__(self, n_features: int, hidden: int = 32, lr: float = 1e-3) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(n_features, hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, N_CLASSES),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], batch_idx: int):
        x, y = batch
        return torch.nn.functional.cross_entropy(self(x), y)

    def validation_step(self, batch: tuple[torch.Tensor, torch.Tensor], batch_idx: int):
        x, y = batch
        # what LightningOrdmetricsCallback reads: logits (or "proba") and the true classes
        return {"logits": self(x), "target": y}

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)


def test_scores(model: OrdinalMLP, X: torch.Tensor, y: torch.Tensor) -> str:
    model.eval()
    with torch.no_grad():
        proba = torch.softmax(model(X).double(), dim=1).numpy()
    y = y.numpy()
    qwk = ordmetrics.qwk(y, ordmetrics.decide(proba), labels=range(N_CLASSES))
    return (
        f"test rps {ordmetrics.rps(y, proba):.4f}, pbs {ordmetrics.pbs(y, proba):.4f}, "
        f"qwk {qwk:.4f}"
    )


def main(argv: list[str] | None = None) -> dict[str, int]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=150, help="most epochs (150)")
    parser.add_argument("--patience", type=int, default=10, help="early-stopping patience (10)")
    parser.add_argument("--quick", action="store_true", help="12 epochs, patience 3")
    args = parser.parse_args(argv)
    if args.quick:
        args.epochs, args.patience = 12, 3
    start = time.perf_counter()
    logging.getLogger("lightning.pytorch").setLevel(logging.WARNING)  # no banner lines
    warnings.filterwarnings("ignore", ".*does not have many workers.*")  # tiny in-memory data
    warnings.filterwarnings("ignore", ".*LeafSpec.*")  # Lightning's own use of torch's pytree
    torch.set_num_threads(1)
    L.seed_everything(0, verbose=False)
    X_tr, y_tr, X_va, y_va, X_te, y_te = load_splits(seed=0)
    train_dl = DataLoader(TensorDataset(X_tr, y_tr), batch_size=32, shuffle=True)
    val_dl = DataLoader(TensorDataset(X_va, y_va), batch_size=64)

    metrics = LightningOrdmetricsCallback(["rps", "pbs", "qwk"])
    with tempfile.TemporaryDirectory() as tmp:
        best_rps = ModelCheckpoint(
            dirpath=tmp, filename="rps-{epoch}", monitor="val_rps", mode=metrics.modes["val_rps"]
        )
        best_pbs = ModelCheckpoint(
            dirpath=tmp, filename="pbs-{epoch}", monitor="val_pbs", mode=metrics.modes["val_pbs"]
        )
        stop = EarlyStopping(monitor="val_rps", mode="min", patience=args.patience)
        trainer = L.Trainer(
            accelerator="cpu",
            max_epochs=args.epochs,
            logger=False,
            enable_progress_bar=False,
            enable_model_summary=False,
            default_root_dir=tmp,
            callbacks=[metrics, best_rps, best_pbs, stop],
        )
        trainer.fit(OrdinalMLP(X_tr.shape[1]), train_dl, val_dl)

        n_run = len(metrics.epochs)
        print(f"{n_run} epochs run (at most {args.epochs}); epochs are numbered from 0")
        print(f"{'epoch':>5} {'val_rps':>8} {'val_pbs':>8} {'val_qwk':>8}")
        for i, e in enumerate(metrics.epochs):
            if i % max(1, n_run // 8) == 0 or i == n_run - 1:
                row = " ".join(f"{metrics.history[n][i]:>8.4f}" for n in metrics.names)
                print(f"{e:>5} {row}")

        chosen = {}
        for name, ckpt in (("val_rps", best_rps), ("val_pbs", best_pbs)):
            epoch = torch.load(ckpt.best_model_path, weights_only=False)["epoch"]
            sel = ordmetrics.select_epoch(metrics.history[name], mode=metrics.modes[name])
            assert metrics.epochs[sel.best_epoch] == epoch, (name, epoch, sel)
            assert float(ckpt.best_model_score) == sel.best_value
            chosen[name] = epoch
            model = OrdinalMLP.load_from_checkpoint(ckpt.best_model_path)
            print(
                f"ModelCheckpoint(monitor={name!r}): epoch {epoch} ({name} "
                f"{sel.best_value:.4f}; select_epoch agrees): {test_scores(model, X_te, y_te)}"
            )
        by_stop = ordmetrics.select_epoch(
            metrics.history["val_rps"], mode="min", patience=args.patience
        )
        if stop.stopped_epoch:
            assert stop.stopped_epoch == metrics.epochs[by_stop.stop_epoch]
            print(
                f"EarlyStopping(monitor='val_rps', patience={args.patience}) stopped after "
                f"epoch {stop.stopped_epoch}; select_epoch agrees: {by_stop.stop_epoch}"
            )
        else:
            print(f"EarlyStopping(monitor='val_rps', patience={args.patience}) did not stop")
    print(f"time: {time.perf_counter() - start:.1f} s")
    return {"rps": chosen["val_rps"], "pbs": chosen["val_pbs"], "n_epochs": n_run}


if __name__ == "__main__":
    main()
