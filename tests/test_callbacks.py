"""The Keras and Lightning callbacks: logged values equal ordmetrics on the same predictions.

Keras runs on its PyTorch backend: ``KERAS_BACKEND`` is set to ``"torch"`` before keras is
first imported (the Keras tests are skipped if keras was already imported with another
backend). Keras and Lightning are optional: their tests are skipped when they are missing.
Their examples (``examples/``) run here in this process with ``--quick``, where the framework is
already imported.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import ordmetrics
from ordmetrics import callbacks
from ordmetrics.callbacks import monitor_mode

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# Deprecation notices that Keras 3.15 and Lightning 2.6 raise themselves (NumPy 2's copy
# keyword, torch's pytree API); nothing of ordmetrics.
pytestmark = [
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:`isinstance.treespec, LeafSpec.` is deprecated"),
]
METRICS = ["rps", "pbs", "qwk", ("expected_cost", {"costs": "squared"}, "ec2")]
NAMES = ["val_rps", "val_pbs", "val_qwk", "val_ec2"]


def _reference(y, P, w=None, labels=None):
    """The four metrics of METRICS computed directly with the core functions."""
    k = P.shape[1]
    agreement_labels = list(range(k)) if labels is None else labels
    pred = ordmetrics.decide(P, labels=labels)
    return {
        "val_rps": ordmetrics.rps(y, P, labels=labels, sample_weight=w),
        "val_pbs": ordmetrics.pbs(y, P, labels=labels, sample_weight=w),
        "val_qwk": ordmetrics.qwk(y, pred, labels=agreement_labels, sample_weight=w),
        "val_ec2": ordmetrics.expected_cost(
            y, pred, labels=agreement_labels, sample_weight=w, costs="squared"
        ),
    }


def _run_example(name: str, capsys) -> tuple[dict, str]:
    """Run an example's ``main(["--quick"])`` in this process (the framework is imported)."""
    spec = importlib.util.spec_from_file_location(f"_example_{Path(name).stem}", EXAMPLES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    start = time.perf_counter()
    result = module.main(["--quick"])
    assert time.perf_counter() - start < 60
    return result, capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# Without either framework
# --------------------------------------------------------------------------------------------


def test_monitor_mode_follows_the_registry():
    for name in ordmetrics.list_metrics():
        spec = ordmetrics.get_metric(name)
        if spec.kind in ("scoring_rule", "calibration", "ranking", "agreement"):
            want = "min" if spec.direction == "minimize" else "max"
            assert monitor_mode(name) == want
            assert monitor_mode(spec) == want
    assert monitor_mode("rps") == "min" and monitor_mode("qwk") == "max"
    entry = ordmetrics.metric_set(("kappa", {"weights": "linear"})).entries[0]
    assert monitor_mode(entry) == "max"


def test_monitor_mode_errors():
    with pytest.raises(ValueError, match="for the logged name 'val_rps' pass 'rps'"):
        monitor_mode("val_rps")
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        monitor_mode("nope")


def test_importing_the_module_imports_no_framework():
    code = (
        "import sys, ordmetrics.callbacks as c; "
        "assert 'keras' not in sys.modules and 'lightning' not in sys.modules; "
        "assert c.monitor_mode('pbs') == 'min'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_missing_frameworks_name_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "keras", None)
    with pytest.raises(ImportError, match=r"pip install ordmetrics\[keras\]"):
        callbacks._make_keras_callback()
    monkeypatch.setitem(sys.modules, "lightning", None)
    monkeypatch.setitem(sys.modules, "lightning.pytorch", None)
    with pytest.raises(ImportError, match=r"pip install ordmetrics\[lightning\]"):
        callbacks._make_lightning_callback()
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        callbacks.Nope  # noqa: B018


def test_shared_metric_computation_equals_the_core(rng):
    m = callbacks._Metrics(METRICS, None, "val_", "argmax")
    assert m.names == tuple(NAMES)
    assert m.modes == {"val_rps": "min", "val_pbs": "min", "val_qwk": "max", "val_ec2": "min"}
    y = rng.integers(0, 4, size=50)
    P = rng.dirichlet(np.ones(4), size=50)
    w = rng.uniform(0, 2, size=50)
    assert m.compute(y, P, w, "") == _reference(y, P, w)
    # float32 predictions, as a Keras model gives, with string labels
    labels = ["a", "b", "c", "d"]
    m = callbacks._Metrics(METRICS, labels, "val_", "argmax")
    ys = np.array(labels)[y]
    P32 = P.astype(np.float32)
    assert m.compute(ys, P32, None, "") == _reference(ys, P32, labels=labels)
    with pytest.raises(ValueError, match=r"shape \(n_samples, n_classes\)"):
        m.compute(y, P[:, :1], None, "")
    with pytest.raises(ValueError, match="unknown metric"):
        callbacks._Metrics(["rsp"], None, "val_", "argmax")
    with pytest.raises(ValueError, match="decision"):
        callbacks._Metrics(["qwk"], None, "val_", "mode")
    with pytest.raises(TypeError, match="prefix must be a string"):
        callbacks._Metrics(["qwk"], None, None, "argmax")


def test_errors_name_the_metric_and_epoch(rng):
    m = callbacks._Metrics(["rps"], None, "val_", "argmax")
    P = rng.dirichlet(np.ones(3), size=5)
    with pytest.raises(ValueError, match=r"class indices 0\.\.2") as info:
        m.compute(np.array([0, 1, 2, 5, 0]), P, None, " at epoch 4")
    if sys.version_info >= (3, 11):
        assert "computing 'val_rps' at epoch 4" in str(info.value.__notes__)
    # predictions that are not finite are the callback's own error, naming the epoch
    P[2] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinite in row 2 at epoch 4.*diverged"):
        m.compute(np.zeros(5, dtype=int), P, None, " at epoch 4")


# --------------------------------------------------------------------------------------------
# Keras
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keras():
    if "keras" not in sys.modules:
        os.environ["KERAS_BACKEND"] = "torch"
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "torch":
        pytest.skip(f"keras was imported with the {keras.backend.backend()} backend")
    return keras


def _keras_model(keras, n_features, k, activation="softmax"):
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input(shape=(n_features,)),
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dense(k, activation=activation),
        ]
    )
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=activation is None)
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss=loss)
    return model


def _keras_data(rng, n=60, k=3):
    X = rng.normal(size=(n, 4)).astype("float32")
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=n), [-0.5, 0.5][: k - 1]).astype("int64")
    return X, y


def test_keras_logs_equal_ordmetrics_on_model_predict(keras, rng):
    X, y = _keras_data(rng)
    X_val, y_val = X[:30], y[:30]
    w = rng.uniform(0.5, 2, size=30)
    cb = callbacks.KerasOrdmetricsCallback((X_val, y_val, w), METRICS)
    assert isinstance(cb, keras.callbacks.Callback)
    assert cb.names == tuple(NAMES) and cb.modes["val_qwk"] == "max"
    seen = []

    class Recompute(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            P = self.model.predict(X_val, verbose=0)
            seen.append((dict(logs), _reference(y_val, P, w)))

    model = _keras_model(keras, 4, 3)
    history = model.fit(X[30:], y[30:], epochs=3, verbose=0, callbacks=[cb, Recompute()])
    assert len(seen) == 3 and cb.epochs == [0, 1, 2]
    for e, (logs, want) in enumerate(seen):
        for name in NAMES:
            assert logs[name] == want[name]
            assert cb.history[name][e] == want[name]
            assert history.history[name][e] == want[name]
    assert len(set(cb.history["val_rps"])) == 3  # the model changed between epochs


def test_keras_early_stopping_monitors_val_rps(keras, rng):
    X, y = _keras_data(rng, n=80)
    cb = callbacks.KerasOrdmetricsCallback((X[:40], y[:40]), ["rps", "pbs"])
    stop = keras.callbacks.EarlyStopping(
        monitor="val_rps", mode=monitor_mode("rps"), patience=2, restore_best_weights=True
    )
    model = _keras_model(keras, 4, 3)
    model.fit(X[40:], y[40:], epochs=12, verbose=0, callbacks=[cb, stop])
    sel = ordmetrics.select_epoch(cb.history["val_rps"], mode="min", patience=2)
    assert stop.best_epoch == sel.best_epoch
    assert stop.best == sel.best_value == min(cb.history["val_rps"][: sel.stop_epoch + 1])
    assert len(cb.epochs) == sel.stop_epoch + 1
    # the restored weights are those of the best epoch
    P = model.predict(X[:40], verbose=0)
    assert ordmetrics.rps(y[:40], P) == pytest.approx(sel.best_value, abs=1e-7)


def test_keras_from_logits_and_labels(keras, rng):
    X, y = _keras_data(rng)
    labels = ["low", "mid", "high"]
    y_val = np.array(labels)[y[:30]]
    cb = callbacks.KerasOrdmetricsCallback(
        (X[:30], y_val), METRICS, labels=labels, from_logits=True, prefix="om_"
    )
    model = _keras_model(keras, 4, 3, activation=None)
    model.fit(X[30:], y[30:], epochs=1, verbose=0, callbacks=[cb])
    logits = model.predict(X[:30], verbose=0).astype(np.float64)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    P = e / e.sum(axis=1, keepdims=True)
    want = _reference(y_val, P, labels=labels)
    for name in NAMES:
        assert cb.history["om_" + name[4:]][0] == pytest.approx(want[name], abs=1e-12)
    assert cb.compute()["om_rps"] == cb.history["om_rps"][0]


def test_keras_errors(keras, rng):
    X, y = _keras_data(rng)
    with pytest.raises(ValueError, match=r"\(X_val, y_val\)"):
        callbacks.KerasOrdmetricsCallback((X,), ["rps"])
    with pytest.raises(ValueError, match="one true class per sample"):
        callbacks.KerasOrdmetricsCallback((X, np.eye(3)[y]), ["rps"])
    cb = callbacks.KerasOrdmetricsCallback((X, y), ["rps"])
    cb.set_model(_keras_model(keras, 4, 3))
    with pytest.raises(ValueError, match="already hold 'val_rps'"):
        cb.on_epoch_end(0, {"val_rps": 1.0})
    cb = callbacks.KerasOrdmetricsCallback((X, y), ["rps"])
    cb.set_model(_keras_model(keras, 4, 1, activation="sigmoid"))
    with pytest.raises(ValueError, match=r"\[1 - p, p\]"):
        cb.on_epoch_end(0, {})


def test_keras_example_runs(keras, capsys):
    pytest.importorskip("sklearn")
    result, out = _run_example("keras_early_stopping.py", capsys)
    assert result["n_epochs"] == 12 and 0 <= result["rps"] < 12
    assert "EarlyStopping(monitor='val_rps'" in out and "ModelCheckpoint(monitor='val_pbs')" in out
    assert "select_epoch agrees" in out


# --------------------------------------------------------------------------------------------
# Lightning
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pl():
    pytest.importorskip("lightning")
    import lightning.pytorch as pl

    return pl


def _lightning_module(pl, torch, *, output="logits", weights=None):
    class Net(pl.LightningModule):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.net = torch.nn.Linear(4, 3)
            self.seen = {}  # epoch -> list of (proba float64, target) of validation batches

        def forward(self, x):
            return self.net(x)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.cross_entropy(self(x), y)

        def validation_step(self, batch, batch_idx):
            x, y = batch
            logits = self(x)
            if not self.trainer.sanity_checking:
                P = torch.softmax(logits.detach().double(), dim=1).numpy()
                self.seen.setdefault(self.current_epoch, []).append((P, y.numpy()))
            if output == "tensor":
                return logits
            out = {"target": y, "loss": torch.tensor(0.0)}
            if output == "logits":
                out["logits"] = logits
            else:
                out["proba"] = torch.softmax(logits.double(), dim=1)
            if weights is not None:
                out["sample_weight"] = weights[batch_idx * 10 : batch_idx * 10 + len(y)]
            return out

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.5)

    return Net()


def _loaders(torch, rng):
    from torch.utils.data import DataLoader, TensorDataset

    X = torch.as_tensor(rng.normal(size=(90, 4)), dtype=torch.float32)
    y = torch.as_tensor(np.digitize(X[:, 0].numpy() + 0.5 * rng.normal(size=90), [-0.5, 0.5]))
    train = DataLoader(TensorDataset(X[:60], y[:60]), batch_size=20)
    val = DataLoader(TensorDataset(X[60:], y[60:]), batch_size=10)
    return train, val


def _trainer(pl, tmp_path, callbacks_, max_epochs=3):
    return pl.Trainer(
        accelerator="cpu",
        max_epochs=max_epochs,
        logger=False,
        enable_checkpointing=True,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=tmp_path,
        callbacks=callbacks_,
    )


@pytest.mark.parametrize("output", ["logits", "proba"])
def test_lightning_checkpoint_picks_the_lowest_val_rps(pl, tmp_path, rng, output):
    import torch

    train, val = _loaders(torch, rng)
    cb = callbacks.LightningOrdmetricsCallback(METRICS)
    assert isinstance(cb, pl.callbacks.Callback)
    ckpt = pl.callbacks.ModelCheckpoint(
        dirpath=tmp_path, filename="{epoch}", monitor="val_rps", mode=cb.modes["val_rps"]
    )
    model = _lightning_module(pl, torch, output=output)
    _trainer(pl, tmp_path, [cb, ckpt]).fit(model, train, val)

    assert cb.epochs == [0, 1, 2]
    for i, epoch in enumerate(cb.epochs):
        P = np.concatenate([p for p, _ in model.seen[epoch]])
        y = np.concatenate([t for _, t in model.seen[epoch]])
        want = _reference(y, P)
        for name in NAMES:
            assert cb.history[name][i] == pytest.approx(want[name], abs=1e-12)
    assert len(set(cb.history["val_rps"])) == 3
    best = int(np.argmin(cb.history["val_rps"]))
    assert Path(ckpt.best_model_path).name == f"epoch={best}.ckpt"
    assert ckpt.best_model_score.dtype == torch.float64
    assert ckpt.best_model_score.item() == min(cb.history["val_rps"])
    saved = torch.load(ckpt.best_model_path, weights_only=False)
    assert saved["epoch"] == best
    # the callback's state (its history up to that epoch) is saved in the checkpoint
    state = saved["callbacks"][cb.state_key]
    assert state["epochs"] == list(range(best + 1))
    assert state["history"]["val_rps"] == cb.history["val_rps"][: best + 1]


def test_lightning_validate_logs_exact_weighted_values(pl, tmp_path, rng):
    import torch

    _, val = _loaders(torch, rng)
    w = torch.as_tensor(rng.uniform(0.5, 2, size=30))
    cb = callbacks.LightningOrdmetricsCallback(METRICS, prog_bar=True)
    model = _lightning_module(pl, torch, weights=w)
    [result] = _trainer(pl, tmp_path, [cb]).validate(model, val, verbose=False)
    P = np.concatenate([p for p, _ in model.seen[0]])
    y = np.concatenate([t for _, t in model.seen[0]])
    want = _reference(y, P, w.numpy())
    for name in NAMES:
        assert result[name] == pytest.approx(want[name], abs=1e-12)
        assert result[name] == cb.history[name][0]
    assert cb.state_dict()["history"] == cb.history
    other = callbacks.LightningOrdmetricsCallback(METRICS)
    other.load_state_dict(cb.state_dict())
    assert other.history == cb.history and other.epochs == cb.epochs


def test_lightning_contract_errors(pl, tmp_path, rng):
    import torch

    train, val = _loaders(torch, rng)
    cb = callbacks.LightningOrdmetricsCallback(["rps"])
    model = _lightning_module(pl, torch, output="tensor")
    with pytest.raises(TypeError, match="validation_step to return a dict with 'target'"):
        _trainer(pl, tmp_path, [cb]).fit(model, train, val)
    with pytest.raises(TypeError, match="to_proba must be callable"):
        callbacks.LightningOrdmetricsCallback(["rps"], to_proba=1)
    with pytest.raises(ValueError, match="unknown metric"):
        callbacks.LightningOrdmetricsCallback(["rsp"])


def test_lightning_callbacks_pickle_and_have_distinct_state_keys(pl):
    a = callbacks.LightningOrdmetricsCallback(METRICS)
    b = callbacks.LightningOrdmetricsCallback(["rps"], prefix="test_")
    assert a.state_key != b.state_key
    copy = pickle.loads(pickle.dumps(a))
    assert type(copy) is type(a) and copy.names == a.names and copy.modes == a.modes


def test_lightning_early_stopping_and_to_proba(pl, tmp_path, rng):
    import torch

    train, val = _loaders(torch, rng)

    def to_proba(logits):  # a user-supplied link: here the softmax, computed by hand
        e = torch.exp(logits.double() - logits.double().max(dim=1, keepdim=True).values)
        return e / e.sum(dim=1, keepdim=True)

    cb = callbacks.LightningOrdmetricsCallback(["rps", "pbs"], to_proba=to_proba)
    stop = pl.callbacks.EarlyStopping(monitor="val_pbs", mode=monitor_mode("pbs"), patience=1)
    model = _lightning_module(pl, torch)
    _trainer(pl, tmp_path, [cb, stop], max_epochs=8).fit(model, train, val)
    sel = ordmetrics.select_epoch(cb.history["val_pbs"], mode="min", patience=1)
    assert len(cb.epochs) == sel.stop_epoch + 1
    assert stop.best_score.item() == sel.best_value


def test_lightning_example_runs(pl, capsys):
    pytest.importorskip("sklearn")
    result, out = _run_example("lightning_checkpoint.py", capsys)
    assert result["n_epochs"] == 12 and 0 <= result["pbs"] < 12
    assert (
        "ModelCheckpoint(monitor='val_rps')" in out and "ModelCheckpoint(monitor='val_pbs')" in out
    )
    assert out.count("select_epoch agrees") == 2
