"""Checkpoint selection and early stopping by Brier vs PBS and log loss vs PLL on real data.

Tests the claim of Ahmadian, Ghatee and Wahlstrom (Sect. 5.5, Tables 2-3): a model chosen by
the penalized Brier score (PBS) or penalized log loss (PLL) on validation data, by model
checkpointing (CP: the best epoch of the run) or early stopping (ES), has a higher test
macro-F1 than one chosen by the Brier score or the log loss; and the validation trajectories of
PBS and PLL correlate more with the validation F1 than those of Brier and log loss.

Protocol. A small neural network (scikit-learn ``MLPClassifier``, one hidden layer of 128 ReLU
units, Adam) is trained epoch by epoch with ``partial_fit`` (one pass over the shuffled training
rows per epoch) for ``--epochs`` epochs. After each epoch the validation Brier score, PBS, log
loss, PLL and RPS, and the validation and test macro-F1 and QWK of the arg-max decisions are
recorded. For each rule:

* CP: ``select_epoch(values, mode="min")``, the earliest epoch with the best validation value
  (Keras' ``ModelCheckpoint(save_best_only=True)``, reloaded before testing);
* ES: ``select_epoch(values, mode="min", patience=10)``: Keras' ``EarlyStopping(patience=10)``, the
  patience of the authors' training code, which does not restore the best weights, so the
  tested model is the one of the stopping epoch;
* ES+restore: the same rule with ``restore_best_weights=True`` (the best epoch up to the stop).

The test F1/QWK of the chosen epoch is recorded; baselines: the last epoch, the epoch chosen by
the validation macro-F1 itself, and the (unattainable) epoch of the best test F1.

Splits. Neither data set is ordered in time (wine: red wines then white wines; diamonds: sorted
by price), so contiguous h-blocks would test extrapolation to other wines or other prices, not
serial dependence: the rows are split by stratified 5-fold cross-validation; fold ``f`` is the
test set, fold ``f + 1`` the validation set and the other three train (60/20/20). Each seed
reshuffles the folds and the network's initialisation. ``--cv hblock`` instead runs
``ordmetrics.model_selection.HBlockSplit`` (10 blocks, 50/20/30, on the stored row order), the
paper's Algorithm 4, as a robustness check under that shift.

Data (``studies/data``, see its README): UCI wine quality (6,497 wines, quality 3..9 merged into
5 ordered classes <=4, 5, 6, 7, >=8) and ggplot2's diamonds (cut, 5 grades; a stratified
subsample of ``--diamonds-rows`` rows per seed).

Run: ``python studies/ahmadian_checkpoints.py`` (``--quick`` for a smoke run). Writes
``checkpoints.md``, ``checkpoints_runs.csv`` and ``checkpoints.png`` to ``--out-dir`` (default
``studies/results``).
"""

from __future__ import annotations

import argparse
import csv
import math
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

import ordmetrics as om
from ordmetrics.model_selection import HBlockSplit

DATA = Path(__file__).resolve().parent / "data"
RULES = ("brier", "pbs", "log_loss", "pll", "rps")
RULE_NAMES = {"brier": "Brier", "pbs": "PBS", "log_loss": "log loss", "pll": "PLL", "rps": "RPS"}
PAIRS = (("pbs", "brier"), ("pll", "log_loss"), ("rps", "brier"))
MODES = ("CP", "ES", "ES+restore")
BASELINES = ("last epoch", "val macro-F1 (CP)", "oracle (best test F1)")
HIDDEN = (128,)
LEARNING_RATE = 1e-2
PATIENCE = 10  # EarlyStopping(patience=10) of the authors' train_model
K = 5
EPS = 1e-7  # probabilities are clipped here for the logarithmic rules (as Keras does)


@dataclass
class Data:
    name: str
    X: np.ndarray
    y: np.ndarray


def load_wine() -> Data:
    df = pd.read_csv(DATA / "winequality.csv.gz")
    y = np.clip(df["quality"].to_numpy(), 4, 8) - 4  # <=4, 5, 6, 7, >=8
    X = df.drop(columns=["quality", "color"]).to_numpy(dtype=float)
    X = np.column_stack([X, (df["color"] == "red").to_numpy(dtype=float)])
    return Data("wine quality", X, y)


def load_diamonds(n_rows: int, seed: int) -> Data:
    df = pd.read_csv(DATA / "diamonds.csv.xz")
    cuts = ["Fair", "Good", "Very Good", "Premium", "Ideal"]
    colors = list("DEFGHIJ")
    clarities = ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"]
    y = df["cut"].map({c: i for i, c in enumerate(cuts)}).to_numpy()
    X = np.column_stack(
        [
            np.log(df[["carat", "price"]].to_numpy(dtype=float)),
            df[["depth", "table", "x", "y", "z"]].to_numpy(dtype=float),
            df["color"].map({c: i for i, c in enumerate(colors)}).to_numpy(dtype=float),
            df["clarity"].map({c: i for i, c in enumerate(clarities)}).to_numpy(dtype=float),
        ]
    )
    if n_rows < len(y):
        idx, _ = train_test_split(
            np.arange(len(y)), train_size=n_rows, stratify=y, random_state=seed
        )
        idx = np.sort(idx)  # keep the stored (price) order for --cv hblock
        X, y = X[idx], y[idx]
    return Data("diamonds cut", X, y)


def splits(y: np.ndarray, cv: str, seed: int):
    """Yield (split id, train, validation, test) index arrays."""
    if cv == "hblock":
        for s, (tr, va, te) in enumerate(HBlockSplit(n_blocks=10).split_with_validation(y)):
            yield s, tr, va, te
        return
    folds = list(
        StratifiedKFold(n_splits=5, shuffle=True, random_state=seed).split(np.zeros(len(y)), y)
    )
    tests = [te for _, te in folds]
    for f in range(5):
        va = tests[(f + 1) % 5]
        tr = np.concatenate([tests[g] for g in range(5) if g not in (f, (f + 1) % 5)])
        yield f, np.sort(tr), np.sort(va), np.sort(tests[f])


def scores(y: np.ndarray, p: np.ndarray) -> dict[str, float]:
    """The five rules on one set of predictions (log rules on clipped probabilities)."""
    labels = range(K)
    q = np.clip(p, EPS, 1.0)
    q /= q.sum(axis=1, keepdims=True)
    return {
        "brier": om.brier(y, p, labels=labels),
        "pbs": om.pbs(y, p, labels=labels),
        "log_loss": om.log_loss(y, q, labels=labels),
        "pll": om.pll(y, q, labels=labels),
        "rps": om.rps(y, p, labels=labels),
    }


def decisions(y: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    pred = p.argmax(axis=1)
    return om.macro_f1(y, pred, labels=range(K)), om.qwk(y, pred, labels=range(K))


def train_run(data: Data, tr, va, te, epochs: int, seed: int) -> dict[str, np.ndarray]:
    """Per-epoch trajectories of one training run."""
    scaler = StandardScaler().fit(data.X[tr])
    Xtr, Xva, Xte = (scaler.transform(data.X[i]) for i in (tr, va, te))
    ytr, yva, yte = data.y[tr], data.y[va], data.y[te]
    clf = MLPClassifier(
        hidden_layer_sizes=HIDDEN,
        learning_rate_init=LEARNING_RATE,
        batch_size=128,
        alpha=1e-5,
        random_state=seed,
    )
    hist: dict[str, list[float]] = {
        k: [] for k in (*RULES, "val_f1", "val_qwk", "test_f1", "test_qwk")
    }
    for _ in range(epochs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.partial_fit(Xtr, ytr, classes=np.arange(K))
        pva, pte = clf.predict_proba(Xva), clf.predict_proba(Xte)
        for rule, v in scores(yva, pva).items():
            hist[rule].append(v)
        f1, qwk = decisions(yva, pva)
        hist["val_f1"].append(f1)
        hist["val_qwk"].append(qwk)
        f1, qwk = decisions(yte, pte)
        hist["test_f1"].append(f1)
        hist["test_qwk"].append(qwk)
    return {k: np.asarray(v) for k, v in hist.items()}


def select(hist: dict[str, np.ndarray], patience: int) -> list[dict]:
    """The chosen epoch of every rule and mode, with its test F1/QWK."""
    rows = []

    def add(method: str, mode: str, epoch: int) -> None:
        rows.append(
            {
                "method": method,
                "mode": mode,
                "epoch": int(epoch),
                "test_f1": float(hist["test_f1"][epoch]),
                "test_qwk": float(hist["test_qwk"][epoch]),
            }
        )

    for rule in RULES:
        cp = om.select_epoch(hist[rule], mode="min")
        es = om.select_epoch(hist[rule], mode="min", patience=patience)
        add(rule, "CP", cp.best_epoch)
        add(rule, "ES", es.stop_epoch)
        add(rule, "ES+restore", es.best_epoch)
    n = len(hist["test_f1"])
    add("last epoch", "-", n - 1)
    add("val macro-F1 (CP)", "-", om.select_epoch(hist["val_f1"], mode="max").best_epoch)
    add("oracle (best test F1)", "-", int(np.argmax(hist["test_f1"])))
    return rows


def correlations(hist: dict[str, np.ndarray]) -> dict[str, float]:
    """Table 2: Pearson correlation of the validation F1 with the negated rule, per run."""
    out = {}
    for rule in RULES:
        if np.ptp(hist[rule]) == 0 or np.ptp(hist["val_f1"]) == 0:
            out[rule] = math.nan
        else:
            out[rule] = om.trajectory_correlation(hist["val_f1"], -hist[rule])
    return out


def mean_sd(x) -> str:
    x = np.asarray(x, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return "n/a"
    sd = x.std(ddof=1) if len(x) > 1 else 0.0
    return f"{x.mean():.4f} +/- {sd:.4f}"


def paired(a, b) -> str:
    """Mean +/- SD of the paired difference a - b, its standard error and win/tie/loss."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    d = d[~np.isnan(d)]
    sd = d.std(ddof=1) if len(d) > 1 else 0.0
    se = sd / math.sqrt(len(d))
    wins, ties = int((d > 1e-12).sum()), int((np.abs(d) <= 1e-12).sum())
    return f"{d.mean():+.4f} +/- {sd:.4f} (SE {se:.4f}; {wins}/{ties}/{len(d) - wins - ties})"


def report(runs: list[dict], corr: list[dict], args, elapsed: float) -> str:
    df = pd.DataFrame(runs)
    cf = pd.DataFrame(corr)
    split_text = (
        "stratified 5-fold, 60/20/20 train/validation/test"
        if args.cv == "kfold"
        else "HBlockSplit(n_blocks=10) on the stored row order, 50/20/30"
    )
    lines = [
        "# Ahmadian et al., Tables 2-3: checkpoint selection by Brier vs PBS, log loss vs PLL",
        "",
        f"MLPClassifier ({HIDDEN[0]} ReLU units, Adam, learning rate {LEARNING_RATE}, batches "
        f"of 128), {args.epochs} epochs of `partial_fit`; splits: {split_text}; "
        f"seeds: {args.seeds}; early-stopping patience {args.patience}. "
        "Values: mean +/- SD over runs (split x seed). Paired differences: mean +/- SD "
        "(SE = SD/sqrt(runs), which treats runs as independent; folds of one seed share "
        "data, so it is optimistic), then wins/ties/losses of the first rule.",
        "",
    ]
    for ds in df["dataset"].unique():
        d = df[df["dataset"] == ds]
        n_runs = d.groupby(["seed", "split"]).ngroups
        lines += [f"## {ds} ({n_runs} runs)", ""]
        lines += [
            "| selected by | mode | epoch | test macro-F1 | test QWK |",
            "|---|---|---|---|---|",
        ]
        for rule in RULES:
            for mode in MODES:
                s = d[(d["method"] == rule) & (d["mode"] == mode)]
                lines.append(
                    f"| {RULE_NAMES[rule]} | {mode} | {s['epoch'].mean():.1f} | "
                    f"{mean_sd(s['test_f1'])} | {mean_sd(s['test_qwk'])} |"
                )
        for base in BASELINES:
            s = d[d["method"] == base]
            lines.append(
                f"| {base} | - | {s['epoch'].mean():.1f} | {mean_sd(s['test_f1'])} | "
                f"{mean_sd(s['test_qwk'])} |"
            )
        lines += [
            "",
            "Paired differences of the test scores (Table 3's Delta):",
            "",
            "| comparison | mode | Delta macro-F1 | Delta QWK | runs with a different epoch |",
            "|---|---|---|---|---|",
        ]
        for a, b in PAIRS:
            for mode in MODES:
                sa = d[(d["method"] == a) & (d["mode"] == mode)].sort_values(["seed", "split"])
                sb = d[(d["method"] == b) & (d["mode"] == mode)].sort_values(["seed", "split"])
                diff_epoch = int((sa["epoch"].to_numpy() != sb["epoch"].to_numpy()).sum())
                lines.append(
                    f"| {RULE_NAMES[a]} - {RULE_NAMES[b]} | {mode} | "
                    f"{paired(sa['test_f1'], sb['test_f1'])} | "
                    f"{paired(sa['test_qwk'], sb['test_qwk'])} | {diff_epoch} of {len(sa)} |"
                )
        c = cf[cf["dataset"] == ds]
        lines += [
            "",
            "Table 2 analogue: Pearson correlation over epochs of the validation macro-F1 "
            "with the negated validation rule, mean +/- SD over runs:",
            "",
            "| Cr Brier | Cr PBS | Cr log loss | Cr PLL | Cr RPS |",
            "|---|---|---|---|---|",
            f"| {mean_sd(c['brier'])} | {mean_sd(c['pbs'])} | {mean_sd(c['log_loss'])} | "
            f"{mean_sd(c['pll'])} | {mean_sd(c['rps'])} |",
            "",
            f"Paired Delta Cr PBS - Cr Brier: {paired(c['pbs'], c['brier'])}; "
            f"Delta Cr PLL - Cr log loss: {paired(c['pll'], c['log_loss'])}.",
            "",
        ]
    lines.append(f"{len(df)} selections from {len(cf)} training runs in {elapsed:.0f} s.")
    return "\n".join(lines) + "\n"


def plot(hist: dict[str, np.ndarray], out: Path, title: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no figure (pip install ordmetrics[plot])")
        return False
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    epochs = np.arange(1, len(hist["val_f1"]) + 1)
    for ax, pair in zip(axes, (("brier", "pbs"), ("log_loss", "pll")), strict=True):
        ax.plot(epochs, hist["val_f1"], color="tab:orange", label="validation macro-F1")
        ax.plot(epochs, hist["test_f1"], color="tab:orange", ls=":", label="test macro-F1")
        ax2 = ax.twinx()
        for rule, color in zip(pair, ("tab:red", "tab:green"), strict=True):
            v = -hist[rule]
            v = (v - v.min()) / (np.ptp(v) or 1.0)  # min-max scaled, best epoch at 1
            best = int(np.argmax(v))
            ax2.plot(epochs, v, color=color, label=f"-{RULE_NAMES[rule]} (validation)")
            ax2.plot(epochs[best], v[best], "o", color=color)
            ax.axvline(epochs[best], color=color, lw=0.8, ls="--")
        ax.set_xlabel("epoch")
        ax.set_ylabel("macro-F1")
        ax2.set_ylabel("negated validation score, min-max scaled")
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="lower right")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print(f"figure written to {out}")
    return True


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=60, help="training epochs (60)")
    parser.add_argument("--seeds", type=int, default=3, help="repetitions with new seeds (3)")
    parser.add_argument("--patience", type=int, default=PATIENCE)
    parser.add_argument("--cv", choices=("kfold", "hblock"), default="kfold")
    parser.add_argument("--datasets", nargs="+", default=["wine", "diamonds"])
    parser.add_argument("--diamonds-rows", type=int, default=6000)
    parser.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent / "results")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 1 seed, 2 splits, 12 epochs, wine"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    max_splits = None
    if args.quick:
        args.epochs, args.seeds, args.datasets, max_splits = 12, 1, ["wine"], 2
        args.patience = min(args.patience, 3)
    t0 = time.perf_counter()
    runs, corr, example = [], [], None
    for ds in args.datasets:
        for seed in range(args.seeds):
            data = load_wine() if ds == "wine" else load_diamonds(args.diamonds_rows, seed)
            for s, tr, va, te in splits(data.y, args.cv, seed):
                if max_splits is not None and s >= max_splits:
                    break
                hist = train_run(data, tr, va, te, args.epochs, seed=1000 * seed + s)
                if example is None:
                    example = (hist, f"{data.name}, seed {seed}, split {s}")
                for row in select(hist, args.patience):
                    runs.append({"dataset": data.name, "seed": seed, "split": s, **row})
                corr.append({"dataset": data.name, "seed": seed, "split": s, **correlations(hist)})
    elapsed = time.perf_counter() - t0
    text = report(runs, corr, args, elapsed)
    print(text)
    suffix = "" if args.cv == "kfold" else "_hblock"
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / f"checkpoints{suffix}.md").write_text(text)
    with open(args.out_dir / f"checkpoints{suffix}_runs.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(runs[0]))
        writer.writeheader()
        writer.writerows(runs)
    if example is not None:
        plot(example[0], args.out_dir / f"checkpoints{suffix}.png", example[1])
    print(f"tables written to {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
