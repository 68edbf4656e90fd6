"""Half-precision predictions in the callbacks and the PyTorch losses, and the Keras callback's
checks of its arguments at construction.

Under mixed precision a model outputs float16 or bfloat16 probabilities whose rows sum to 1
only within the rounding of that precision (float16: eps = 2^-10, bfloat16: eps = 2^-7). The
callbacks hold them to ``4 K eps`` (0.0195 and 0.156 for K = 5), convert them to float64 and
divide each row by its sum; the PyTorch losses compute half precision in float32. Keras runs
on its PyTorch backend, as in ``tests/test_callbacks.py``; the Keras and Lightning tests skip
when the framework is missing.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import ordmetrics
from ordmetrics import callbacks
from ordmetrics._core.validation import sum_tolerance
from ordmetrics._core.validation import sum_tolerance_eps as half_tolerance
from ordmetrics.integrations.callback_metrics import _Metrics

pytestmark = [
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:`isinstance.treespec, LeafSpec.` is deprecated"),
]
K = 5
F16_TOL = K * (5e-7 + 4 * 2.0**-10)  # 0.0195337: the rules' max(1e-6, K (5e-7 + 4 eps))
BF16_TOL = K * (5e-7 + 4 * 2.0**-7)  # 0.1562525


def _half_rows(rng, n, dtype):
    """Softmax rows rounded to a half dtype (their sums are off by up to ~K eps / 2)."""
    z = rng.normal(scale=2.0, size=(n, K))
    P = np.exp(z - z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    return P.astype(dtype)


def _rescaled(P):
    P64 = np.asarray(P, dtype=np.float64)
    return P64 / P64.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------------------------
# The shared computation
# --------------------------------------------------------------------------------------------


def test_half_tolerance_is_the_rules_tolerance_at_half_precision():
    assert half_tolerance(2.0**-10, K) == pytest.approx(F16_TOL, rel=1e-15)
    assert half_tolerance(2.0**-7, K) == pytest.approx(BF16_TOL, rel=1e-15)
    assert half_tolerance(2.0**-52, 2) == pytest.approx(1e-6, rel=1e-9)  # float64: 1e-6


def test_float16_rows_are_accepted_and_rescaled(rng):
    y = rng.integers(0, K, size=200)
    P16 = _half_rows(rng, 200, np.float16)
    off = np.abs(P16.astype(np.float64).sum(axis=1) - 1).max()
    assert 1e-6 < off < F16_TOL  # beyond float64's tolerance, within float16's
    m = _Metrics(["rps", "qwk"], None, "val_", "argmax")
    got = m.compute(y, P16, None, " at epoch 0")
    want_rps = ordmetrics.rps(y, _rescaled(P16))
    assert got["val_rps"] == pytest.approx(want_rps, rel=1e-14, abs=0)
    assert got["val_qwk"] == ordmetrics.qwk(
        y, ordmetrics.decide(_rescaled(P16)), labels=list(range(K))
    )


def test_bfloat16_rows_from_ml_dtypes_are_accepted(rng):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    y = rng.integers(0, K, size=200)
    P = _half_rows(rng, 200, ml_dtypes.bfloat16)
    m = _Metrics(["rps"], None, "val_", "argmax")
    got = m.compute(y, P, None, "")["val_rps"]
    assert got == pytest.approx(ordmetrics.rps(y, _rescaled(P)), rel=1e-14, abs=0)


@pytest.mark.parametrize(
    ("owner", "hint"),
    [
        ("KerasOrdmetricsCallback", "pass from_logits=True to KerasOrdmetricsCallback"),
        ("LightningOrdmetricsCallback", "return them as 'logits'"),
    ],
)
def test_rows_beyond_the_tolerance_name_the_callbacks_options(rng, owner, hint):
    P = _half_rows(rng, 20, np.float16)
    P[3] = np.float16(0.3)  # five independent scores of 0.3: the row sums to 1.5
    m = _Metrics(["rps"], None, "val_", "argmax", owner=owner, logits_hint=hint)
    with pytest.raises(ValueError) as info:
        m.compute(np.zeros(20, dtype=int), P, None, " at epoch 2")
    text = str(info.value)
    assert f"tolerance {F16_TOL:g} for half precision with 5 classes" in text
    assert "row 3 (row 3 sums to 1.5" in text and "at epoch 2" in text
    assert hint in text and f"pass renormalize=True to {owner}" in text
    assert "nan_policy" not in text
    P32 = _rescaled(_half_rows(rng, 20, np.float16)).astype(np.float32)
    P32[1] *= 1.01
    tol32 = sum_tolerance(np.dtype(np.float32), K)  # the scoring rules' own, for float32
    with pytest.raises(ValueError, match=rf"tolerance {tol32:g} for float32.*row 1 "):
        m.compute(np.zeros(20, dtype=int), P32, None, "")


def test_renormalize_option_rescales_rows_of_any_dtype(rng):
    y = rng.integers(0, K, size=50)
    P = _rescaled(_half_rows(rng, 50, np.float16)) * rng.uniform(0.9, 1.1, size=(50, 1))
    m = _Metrics(["rps"], None, "val_", "argmax", renormalize=True)
    assert m.compute(y, P, None, "")["val_rps"] == pytest.approx(
        ordmetrics.rps(y, _rescaled(P)), rel=1e-14, abs=0
    )
    with pytest.raises(TypeError, match="renormalize must be"):
        _Metrics(["rps"], None, "val_", "argmax", renormalize="yes")


def test_non_finite_predictions_do_not_advise_nan_policy(rng):
    P = _half_rows(rng, 6, np.float16)
    P[4, 1] = np.inf
    m = _Metrics(["rps"], None, "val_", "argmax", owner="KerasOrdmetricsCallback")
    with pytest.raises(ValueError) as info:
        m.compute(np.zeros(6, dtype=int), P, None, " at epoch 7")
    assert "NaN or infinite in row 4 at epoch 7" in str(info.value)
    assert "KerasOrdmetricsCallback scores finite probabilities" in str(info.value)
    assert "nan_policy" not in str(info.value)


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


def _keras_fit(keras, policy, X, y):
    """One epoch of a small model under a dtype policy; the policy is restored afterwards."""
    before = keras.mixed_precision.global_policy().name
    keras.mixed_precision.set_global_policy(policy)
    try:
        keras.utils.set_random_seed(0)
        model = keras.Sequential(
            [
                keras.Input(shape=(X.shape[1],)),
                keras.layers.Dense(16, activation="relu"),
                keras.layers.Dense(K, activation="softmax"),
            ]
        )
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        cb = callbacks.KerasOrdmetricsCallback((X[:100], y[:100]), ["rps", "qwk"])
        model.fit(X[100:], y[100:], epochs=1, verbose=0, callbacks=[cb])
        P = model.predict(X[:100], verbose=0)
        return cb, P
    finally:
        keras.mixed_precision.set_global_policy(before)


@pytest.mark.parametrize(
    ("policy", "dtype"), [("mixed_float16", "float16"), ("mixed_bfloat16", "bfloat16")]
)
def test_keras_mixed_precision_trains_and_logs(keras, rng, policy, dtype):
    X = rng.normal(size=(200, 4)).astype("float32")
    y = rng.integers(0, K, size=200)
    cb, P = _keras_fit(keras, policy, X, y)
    P = np.asarray(keras.ops.convert_to_numpy(P))
    assert P.dtype.name == dtype
    assert cb.epochs == [0]
    want = ordmetrics.rps(y[:100], _rescaled(P))
    assert cb.history["val_rps"][0] == pytest.approx(want, rel=1e-14, abs=0)


def _keras_callback(X, y, *rest, **kwargs):
    return callbacks.KerasOrdmetricsCallback((X, y, *rest), ["rps"], **kwargs)


def test_keras_refuses_string_weights(keras, rng):
    X = rng.normal(size=(4, 3)).astype("float32")
    with pytest.raises(TypeError, match=r"sample_weight of validation_data: .* got text"):
        _keras_callback(X, np.array([0, 1, 2, 1]), ["1", "2", "1", "1"])
    for w, match in (
        ([1.0, np.nan, 1.0, 1.0], r"finite non-negative .* row 1"),
        ([1.0, 1.0, -2.0, 1.0], r"finite non-negative .*-2\.0 in row 2"),
        ([1.0, 1.0], r"2 entries but there are 4 rows"),
    ):
        with pytest.raises(ValueError, match=match):
            _keras_callback(X, np.array([0, 1, 2, 1]), w)


def test_keras_refuses_empty_validation_data(keras):
    with pytest.raises(ValueError, match=r"validation_data holds no samples \(X_val has 0 rows"):
        _keras_callback(np.zeros((0, 3), dtype="float32"), np.zeros(0, dtype=int))
    with pytest.raises(ValueError, match=r"X_val has 5 rows but y_val 4"):
        _keras_callback(np.zeros((5, 3), dtype="float32"), np.zeros(4, dtype=int))
    with pytest.raises(ValueError, match=r"y_val is missing \(NaN or None\) in row 1"):
        _keras_callback(np.zeros((3, 3), dtype="float32"), np.array([0.0, np.nan, 1.0]))


@pytest.mark.parametrize(
    ("batch_size", "exc"), [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError)]
)
def test_keras_checks_batch_size_at_construction(keras, batch_size, exc):
    X = np.zeros((4, 3), dtype="float32")
    with pytest.raises(exc, match="batch_size"):
        _keras_callback(X, np.array([0, 1, 2, 1]), batch_size=batch_size)
    assert _keras_callback(X, np.array([0, 1, 2, 1]), batch_size=np.int64(2)).batch_size == 2


# --------------------------------------------------------------------------------------------
# Lightning
# --------------------------------------------------------------------------------------------


def _run_hooks(cb, batches):
    """Drive the callback's validation hooks as a Trainer does; return what it logged."""
    logged = {}
    trainer = SimpleNamespace(sanity_checking=False, current_epoch=0, world_size=1)
    module = SimpleNamespace(log=lambda name, value, **_: logged.__setitem__(name, value))
    cb.on_validation_epoch_start(trainer, module)
    for i, out in enumerate(batches):
        cb.on_validation_batch_end(trainer, module, out, None, i)
    cb.on_validation_epoch_end(trainer, module)
    return logged


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_lightning_half_probabilities_are_accepted(rng, dtype):
    pytest.importorskip("lightning")
    import torch

    half = getattr(torch, dtype)
    logits = torch.as_tensor(rng.normal(scale=2.0, size=(60, K)))
    y = torch.as_tensor(rng.integers(0, K, size=60))
    P = torch.softmax(logits, dim=1).to(half)
    assert (P.double().sum(dim=1) - 1).abs().max() > 1e-6  # beyond float32's tolerance
    cb = callbacks.LightningOrdmetricsCallback(["rps"])
    batches = [{"proba": P[i : i + 20], "target": y[i : i + 20]} for i in range(0, 60, 20)]
    logged = _run_hooks(cb, batches)
    want = ordmetrics.rps(y.numpy(), _rescaled(P.double().numpy()))
    assert cb.history["val_rps"][0] == pytest.approx(want, rel=1e-14, abs=0)
    assert float(logged["val_rps"]) == cb.history["val_rps"][0]
    # the same through to_proba, as autocast gives it
    cb = callbacks.LightningOrdmetricsCallback(["rps"], to_proba=lambda z: z.softmax(1).to(half))
    _run_hooks(cb, [{"logits": logits, "target": y}])
    assert cb.history["val_rps"][0] == pytest.approx(want, rel=1e-14, abs=0)


def test_lightning_errors_name_its_options(rng):
    pytest.importorskip("lightning")
    import torch

    P = torch.full((4, K), 0.3, dtype=torch.float16)  # rows sum to 1.5
    y = torch.zeros(4, dtype=torch.long)
    cb = callbacks.LightningOrdmetricsCallback(["rps"])
    with pytest.raises(ValueError, match=r"validation batch 0.*renormalize=True to Lightning"):
        _run_hooks(cb, [{"proba": P, "target": y}])
    cb = callbacks.LightningOrdmetricsCallback(["rps"], renormalize=True)
    logged = _run_hooks(cb, [{"proba": P, "target": y}])
    uniform = ordmetrics.rps(y.numpy(), np.full((4, K), 0.2))
    assert float(logged["val_rps"]) == pytest.approx(uniform, rel=1e-12, abs=0)
    cb = callbacks.LightningOrdmetricsCallback(["rps"])
    good = torch.full((4, K), 0.2, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"'sample_weight' must be finite non-negative"):
        w = torch.tensor([1.0, -1, 1, 1])
        _run_hooks(cb, [{"proba": good, "target": y, "sample_weight": w}])
    with pytest.raises(ValueError, match=r"'target' is missing \(NaN or None\) in row 2"):
        _run_hooks(cb, [{"proba": good, "target": torch.tensor([0.0, 1.0, float("nan"), 2.0])}])


def test_lightning_trainer_with_half_probabilities(rng, tmp_path):
    pytest.importorskip("lightning")
    import lightning.pytorch as pl
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    class Net(pl.LightningModule):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.net = torch.nn.Linear(4, K)
            self.seen = []

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.cross_entropy(self.net(x), y)

        def validation_step(self, batch, batch_idx):
            x, y = batch
            proba = torch.softmax(self.net(x), dim=1).half()
            if not self.trainer.sanity_checking:
                self.seen.append((proba.double().numpy(), y.numpy()))
            return {"proba": proba, "target": y}

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    X = torch.as_tensor(rng.normal(size=(80, 4)), dtype=torch.float32)
    y = torch.as_tensor(rng.integers(0, K, size=80))
    train = DataLoader(TensorDataset(X[:40], y[:40]), batch_size=20)
    val = DataLoader(TensorDataset(X[40:], y[40:]), batch_size=20)
    cb = callbacks.LightningOrdmetricsCallback(["rps"])
    net = Net()
    trainer = pl.Trainer(
        accelerator="cpu",
        max_epochs=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=tmp_path,
        callbacks=[cb],
    )
    trainer.fit(net, train, val)
    P = np.concatenate([_rescaled(p) for p, _ in net.seen])
    t = np.concatenate([t for _, t in net.seen])
    assert cb.history["val_rps"][0] == pytest.approx(ordmetrics.rps(t, P), rel=1e-14, abs=0)


# --------------------------------------------------------------------------------------------
# The PyTorch losses
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("from_logits", [True, False])
def test_torch_losses_in_half_precision(rng, dtype, from_logits):
    torch = pytest.importorskip("torch")
    from ordmetrics.torch import rps_loss, sa_rps_loss

    half = getattr(torch, dtype)
    eps = torch.finfo(half).eps
    logits = torch.as_tensor(rng.normal(scale=2.0, size=(500, K))).to(half)
    y = torch.as_tensor(rng.integers(0, K, size=500))
    x = logits if from_logits else torch.softmax(logits, dim=1)
    # the reference: the same half-precision input, scored in float64
    ref_in = x.double() if from_logits else _rescaled(x.double().numpy())
    for loss, rule in ((rps_loss, ordmetrics.rps), (sa_rps_loss, ordmetrics.sa_rps)):
        got = loss(x, y, from_logits=from_logits)
        assert got.dtype == half
        P = torch.softmax(ref_in, dim=1).numpy() if from_logits else ref_in
        want = rule(y.numpy(), P)
        # rounding the float32 result to the half dtype: at most half an ulp, eps/2 relative;
        # probabilities (not rescaled by the loss) add their own row-sum error, at most ~K eps
        bound = eps * want if from_logits else (K + 1) * eps * want
        assert abs(float(got) - want) <= bound, (float(got), want)
    grad_in = x.clone().requires_grad_()
    rps_loss(grad_in, y, from_logits=from_logits).backward()
    assert grad_in.grad.dtype == half and bool(torch.isfinite(grad_in.grad).all())


def test_torch_half_weights_above_the_float16_range(rng):
    torch = pytest.importorskip("torch")
    from ordmetrics.torch import rps_loss

    logits = torch.as_tensor(rng.normal(size=(8, K))).to(torch.float16)
    y = torch.as_tensor(rng.integers(0, K, size=8))
    w = torch.full((8,), 1e5)  # above float16's largest value, 65504
    got = rps_loss(logits, y, sample_weight=w)
    assert got.dtype == torch.float16
    assert float(got) == pytest.approx(float(rps_loss(logits, y)), rel=2.0**-10)
