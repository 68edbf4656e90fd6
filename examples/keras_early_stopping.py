"""Early stopping and checkpointing of a Keras model by the validation RPS and PBS.

The Ahmadian et al. use case (Sect. 5): keep the epoch that a validation scoring rule prefers.
:class:`ordmetrics.callbacks.KerasOrdmetricsCallback` computes the RPS, the penalized Brier
score (PBS) and QWK of the validation predictions after every epoch and writes them into the
epoch's logs as ``val_rps``, ``val_pbs`` and ``val_qwk``, where Keras' own ``EarlyStopping``
(monitoring ``val_rps``) and ``ModelCheckpoint`` (monitoring ``val_pbs``) read them. The
epochs they choose are checked against :func:`ordmetrics.select_epoch` on the same values.

Data: scikit-learn's bundled diabetes data set, its disease-progression target binned at its
quintiles into 5 ordered grades (no download); split 60/20/20 into train, validation, test.

Keras 3 runs here on its PyTorch backend, chosen below before keras is imported (an existing
``KERAS_BACKEND`` setting is kept). Run: ``python examples/keras_early_stopping.py`` (about
15 s on 2 CPUs); ``--quick`` for a smoke test.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")  # before keras is first imported

import keras
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import ordmetrics
from ordmetrics.callbacks import KerasOrdmetricsCallback, monitor_mode

N_CLASSES = 5


def load_splits(seed: int) -> tuple[np.ndarray, ...]:
    """Train, validation and test splits (60/20/20) of the binned diabetes data."""
    X, target = load_diabetes(return_X_y=True)
    edges = np.quantile(target, np.linspace(0, 1, N_CLASSES + 1)[1:-1])
    y = np.searchsorted(edges, target, side="right").astype(np.int64)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=seed)
    X_tr, X_va, y_tr, y_va = train_test_split(
        X_tr, y_tr, test_size=0.25, stratify=y_tr, random_state=seed
    )
    scaler = StandardScaler().fit(X_tr)
    return (
        scaler.transform(X_tr).astype("float32"),
        y_tr,
        scaler.transform(X_va).astype("float32"),
        y_va,
        scaler.transform(X_te).astype("float32"),
        y_te,
    )


def test_scores(model: keras.Model, X: np.ndarray, y: np.ndarray) -> str:
    proba = model.predict(X, verbose=0)
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
    if keras.backend.backend() == "torch":
        import torch

        torch.set_num_threads(1)  # a tiny model: threads cost more than they give
    keras.utils.set_random_seed(0)
    X_tr, y_tr, X_va, y_va, X_te, y_te = load_splits(seed=0)

    model = keras.Sequential(
        [
            keras.Input(shape=(X_tr.shape[1],)),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(N_CLASSES, activation="softmax"),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy")

    # The metrics callback comes first: the callbacks after it read what it writes into logs.
    metrics = KerasOrdmetricsCallback((X_va, y_va), ["rps", "pbs", "qwk"])
    stop = keras.callbacks.EarlyStopping(
        monitor="val_rps",
        mode=monitor_mode("rps"),  # "min", from ordmetrics.get_metric("rps").direction
        patience=args.patience,
        restore_best_weights=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        best_pbs_path = Path(tmp) / "best_pbs.weights.h5"
        best_pbs = keras.callbacks.ModelCheckpoint(
            best_pbs_path,
            monitor="val_pbs",
            mode=metrics.modes["val_pbs"],
            save_best_only=True,
            save_weights_only=True,
        )
        history = model.fit(
            X_tr,
            y_tr,
            epochs=args.epochs,
            batch_size=32,
            verbose=0,
            callbacks=[metrics, stop, best_pbs],
        )
        n_run = len(metrics.epochs)
        print(f"{n_run} epochs run (at most {args.epochs}); epochs are numbered from 0")
        print(f"{'epoch':>5} {'val_rps':>8} {'val_pbs':>8} {'val_qwk':>8}")
        for e in range(n_run):
            if e % max(1, n_run // 8) == 0 or e == n_run - 1:
                row = " ".join(f"{metrics.history[n][e]:>8.4f}" for n in metrics.names)
                print(f"{e:>5} {row}")

        # The epochs that Keras chose, and the same choice by ordmetrics.select_epoch
        by_rps = ordmetrics.select_epoch(
            metrics.history["val_rps"], mode="min", patience=args.patience
        )
        by_pbs = ordmetrics.select_epoch(metrics.history["val_pbs"], mode="min")
        assert history.history["val_rps"] == metrics.history["val_rps"]
        assert stop.best_epoch == by_rps.best_epoch, (stop.best_epoch, by_rps)
        assert best_pbs.best == metrics.history["val_pbs"][by_pbs.best_epoch]
        print(
            f"EarlyStopping(monitor='val_rps', patience={args.patience}): best epoch "
            f"{stop.best_epoch} (val_rps {stop.best:.4f}), "
            + (f"stopped after epoch {by_rps.stop_epoch}" if by_rps.stopped_early else "ran out")
            + f"; select_epoch agrees: {by_rps.best_epoch}"
        )
        print(f"  weights restored from epoch {stop.best_epoch}: {test_scores(model, X_te, y_te)}")
        print(
            f"ModelCheckpoint(monitor='val_pbs'): best epoch {by_pbs.best_epoch} "
            f"(val_pbs {best_pbs.best:.4f})"
        )
        model.load_weights(best_pbs_path)
        print(f"  weights of epoch {by_pbs.best_epoch}: {test_scores(model, X_te, y_te)}")
    print(f"time: {time.perf_counter() - start:.1f} s")
    return {"rps": by_rps.best_epoch, "pbs": by_pbs.best_epoch, "n_epochs": n_run}


if __name__ == "__main__":
    main()
