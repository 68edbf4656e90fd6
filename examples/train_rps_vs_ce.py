"""Train a small ordinal classifier with the RPS loss and with cross-entropy; compare them.

Data: scikit-learn's bundled diabetes data set (442 patients, 10 baseline measurements; no
download). Its target, a quantitative measure of disease progression one year after baseline,
is binned at its quintiles into 5 ordered grades (0 = least, 4 = most progression), so the
classes are genuinely ordered and balanced. (The other small data sets bundled with
scikit-learn have unordered classes, and the diamonds file shipped with ordmetrics holds
predictions, not features.)

For each seed the same stratified train/test split (70/30) and the same initial weights of a
one-hidden-layer MLP are trained twice, full batch with Adam (the same learning rate, weight
decay and number of epochs, chosen once for both, not tuned per loss): once with
cross-entropy and once with :func:`ordmetrics.torch.rps_loss`. The held-out RPS, log loss and
QWK are computed with ordmetrics and reported as mean +/- std over the seeds, with the paired
difference RPS-loss minus cross-entropy. QWK needs hard decisions; it is shown for two rules of
:func:`ordmetrics.decide`: ``argmax`` (the most probable grade) and ``median`` (the median of
the predicted distribution, the Bayes decision under absolute cost), because the two losses
shape the predicted distributions differently and the best decision rule differs with them.

Run: ``python examples/train_rps_vs_ce.py`` (about 12 s on 2 CPUs); ``--quick`` for a smoke
test.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import ordmetrics
from ordmetrics.torch import rps_loss

N_CLASSES = 5
METRICS = ("rps", "log_loss", "qwk_argmax", "qwk_median")
HIGHER_IS_BETTER = ("qwk_argmax", "qwk_median")


def load_data() -> tuple[np.ndarray, np.ndarray]:
    """Features and the target binned at its quintiles into grades 0..4."""
    X, target = load_diabetes(return_X_y=True)
    edges = np.quantile(target, np.linspace(0, 1, N_CLASSES + 1)[1:-1])
    y = np.searchsorted(edges, target, side="right")  # grade k: edges[k-1] <= target < edges[k]
    return X, y.astype(np.int64)


def make_model(n_features: int, seed: int, hidden: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(n_features, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, N_CLASSES),
    ).double()


def train(
    model: torch.nn.Module, X: torch.Tensor, y: torch.Tensor, loss: str, epochs: int
) -> torch.nn.Module:
    criterion = torch.nn.functional.cross_entropy if loss == "cross_entropy" else rps_loss
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-2)
    for _ in range(epochs):
        optimizer.zero_grad()
        criterion(model(X), y).backward()
        optimizer.step()
    return model


def evaluate(model: torch.nn.Module, X: torch.Tensor, y: np.ndarray) -> dict[str, float]:
    with torch.no_grad():
        proba = torch.softmax(model(X), dim=1).numpy()
    labels = list(range(N_CLASSES))
    return {
        "rps": ordmetrics.rps(y, proba),
        "log_loss": ordmetrics.log_loss(y, proba),
        "qwk_argmax": ordmetrics.qwk(y, ordmetrics.decide(proba, "argmax"), labels=labels),
        "qwk_median": ordmetrics.qwk(y, ordmetrics.decide(proba, "median"), labels=labels),
    }


def main(argv: list[str] | None = None) -> dict[str, dict[str, list[float]]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="number of seeds (default 10)")
    parser.add_argument("--epochs", type=int, default=300, help="full-batch epochs (300)")
    parser.add_argument("--hidden", type=int, default=32, help="hidden units (32)")
    parser.add_argument("--quick", action="store_true", help="2 seeds, 20 epochs (smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.epochs = 2, 20
    torch.set_num_threads(1)  # tiny full-batch problem: threads cost more than they give

    start = time.perf_counter()
    X, y = load_data()
    results: dict[str, dict[str, list[float]]] = {
        loss: {m: [] for m in METRICS} for loss in ("cross_entropy", "rps_loss")
    }
    for seed in range(args.seeds):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3, stratify=y, random_state=seed
        )
        scaler = StandardScaler().fit(X_tr)
        Xt_tr = torch.as_tensor(scaler.transform(X_tr))
        Xt_te = torch.as_tensor(scaler.transform(X_te))
        yt_tr = torch.as_tensor(y_tr)
        for loss in results:
            model = make_model(X.shape[1], seed, args.hidden)  # same initial weights
            train(model, Xt_tr, yt_tr, loss, args.epochs)
            for name, value in evaluate(model, Xt_te, y_te).items():
                results[loss][name].append(value)

    print(
        f"diabetes progression in {N_CLASSES} quintile grades: {len(y)} patients, "
        f"test 30%; MLP 10-{args.hidden}-{N_CLASSES}, {args.epochs} full-batch Adam epochs, "
        f"{args.seeds} seeds (mean +/- std over seeds)"
    )
    print(f"{'training loss':<15}" + "".join(f"{m:>21}" for m in METRICS))
    for loss, values in results.items():
        cells = "".join(f"{np.mean(values[m]):>13.4f} +/- {np.std(values[m]):.4f}" for m in METRICS)
        print(f"{loss:<15}{cells}")
    diff = {m: np.subtract(results["rps_loss"][m], results["cross_entropy"][m]) for m in METRICS}
    cells = "".join(f"{np.mean(diff[m]):>+13.4f} +/- {np.std(diff[m]):.4f}" for m in METRICS)
    print(f"{'rps - ce':<15}{cells}")
    better = {
        m: int(np.sum(diff[m] > 0 if m in HIGHER_IS_BETTER else diff[m] < 0)) for m in METRICS
    }
    print(
        "seeds where the RPS loss is better: "
        + ", ".join(f"{m} {better[m]}/{args.seeds}" for m in METRICS)
        + " (lower rps and log_loss, higher qwk, are better)"
    )
    print(f"time: {time.perf_counter() - start:.1f} s")
    return results


if __name__ == "__main__":
    main()
