"""Declarative parameter checks (``ordmetrics._core.params``) and their use across the API."""

from __future__ import annotations

import inspect
import math
import re
from numbers import Integral, Real
from pathlib import Path

import numpy as np
import pytest

import ordmetrics as om
from ordmetrics._core.params import (
    Constraint,
    Interval,
    Options,
    check_param,
    make_constraint,
    validate_params,
)

POSITIVE = Interval(Integral, 1, None, closed="left")


# --------------------------------------------------------------------------------------------
# Constraint kinds
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("interval", "inside", "outside", "text"),
    [
        (Interval(Integral, 1, None, closed="left"), [1, 2, 10**20], [0, -1], "an integer >= 1"),
        (Interval(Integral, 0, None, closed="neither"), [1], [0, -5], "an integer > 0"),
        (Interval(Integral, None, 3, closed="right"), [3, -(10**9)], [4], "an integer <= 3"),
        (Interval(Integral, None, 3, closed="neither"), [2], [3], "an integer < 3"),
        (Interval(Integral, 2, 5, closed="both"), [2, 5], [1, 6], "an integer in [2, 5]"),
        (Interval(Integral, None, None), [-(10**30), 0], [], "an integer"),
        (Interval(Real, 0, 1, closed="left"), [0, 0.0, 0.999], [1, 1.0, -0.1, math.nan], None),
        (
            Interval(Real, 0, 1, closed="right"),
            [1.0, 1e-300],
            [0.0, math.inf],
            "a number in (0, 1]",
        ),
        (Interval(Real, 0, 1, closed="neither"), [0.5], [0.0, 1.0], "a number in (0, 1)"),
        (Interval(Real, 0, None, closed="left"), [0, math.inf], [-math.inf], "a number >= 0"),
    ],
)
def test_interval(interval, inside, outside, text):
    for v in inside:
        assert interval.is_satisfied_by(v), v
    for v in outside:
        assert not interval.is_satisfied_by(v), v
        assert interval.accepts_type(v)  # a value error, not a type error
    if text is not None:
        assert str(interval) == text


def test_interval_bool_is_not_a_number_and_float_not_an_integer():
    for kind in (Integral, Real):
        iv = Interval(kind, None, None)
        for v in (True, False, np.True_, np.bool_(False)):
            assert not iv.accepts_type(v)
            assert not iv.is_satisfied_by(v)
    ints = Interval(Integral, 0, None, closed="left")
    for v in (4.0, np.float64(4.0), "4", None, 4 + 0j, [4]):
        assert not ints.accepts_type(v)
    reals = Interval(Real, 0, None, closed="left")
    for v in ("4", None, 4 + 0j):
        assert not reals.accepts_type(v)


def test_interval_numpy_scalars():
    ints = Interval(Integral, 1, None, closed="left")
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64):
        assert ints.is_satisfied_by(t(3))
        assert not ints.is_satisfied_by(t(0))
    reals = Interval(Real, 0, 1, closed="left")
    for t in (np.float16, np.float32, np.float64, np.int64):
        assert reals.is_satisfied_by(t(0))
    assert not reals.is_satisfied_by(np.float64("nan"))


def test_interval_description_and_bad_construction():
    assert str(Interval(Integral, 1, None, closed="left", description="a positive integer")) == (
        "a positive integer"
    )
    with pytest.raises(TypeError, match=r"kind must be numbers\.Integral or numbers\.Real"):
        Interval(int, 0, None)
    with pytest.raises(ValueError, match="closed must be one of"):
        Interval(Integral, 0, None, closed="open")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="left must be <= right"):
        Interval(Integral, 3, 1)


@pytest.mark.parametrize(
    ("interval", "example"),
    [
        (Interval(Integral, 1, None, closed="left"), 1),
        (Interval(Integral, 0, None, closed="left"), 1),
        (Interval(Integral, 0, None, closed="neither"), 1),
        (Interval(Integral, 2, 5), 2),
        (Interval(Integral, None, 3, closed="neither"), 2),
        (Interval(Integral, None, None), 1),
        (Interval(Real, 0, 1, closed="neither"), 0.5),
        (Interval(Real, 0, 1, closed="left"), 0),
    ],
)
def test_interval_example_is_inside(interval, example):
    assert interval.example() == example
    assert interval.is_satisfied_by(example)


def test_options():
    opt = Options(("mean", "sum", "none"))
    assert str(opt) == "one of 'mean', 'sum', 'none'"
    assert opt.is_satisfied_by("sum")
    assert opt.is_satisfied_by(np.str_("sum"))
    for v in ("MEAN", "avg", None, 1, True, ["mean"], b"mean"):
        assert not opt.is_satisfied_by(v)
        assert opt.accepts_type(v)  # not being an option is always a ValueError
    assert Options({"b", "a", "c"}).values == ("a", "b", "c")
    assert Options(["x", "x", "y"]).values == ("x", "y")
    assert not Options((1, 2)).is_satisfied_by(True)  # True == 1, but a flag is not option 1
    assert Options((True, "auto")).is_satisfied_by(True)
    assert str(Options(("a",), description="'a' (the only one)")) == "'a' (the only one)"
    with pytest.raises(TypeError, match="not a string"):
        Options("abc")
    with pytest.raises(ValueError, match="at least one option"):
        Options(())


def test_simple_constraints():
    assert make_constraint(None).is_satisfied_by(None)
    assert not make_constraint(None).is_satisfied_by(0)
    boolean = make_constraint("boolean")
    assert all(boolean.is_satisfied_by(v) for v in (True, False, np.True_, np.False_))
    assert not any(boolean.is_satisfied_by(v) for v in (0, 1, None, "True", 1.0, [True]))
    assert make_constraint("callable").is_satisfied_by(len)
    assert not make_constraint("callable").is_satisfied_by("len")
    path = make_constraint(Path)
    assert path.is_satisfied_by(Path(".")) and not path.is_satisfied_by(".")
    assert str(path) == "a Path" and str(make_constraint(int)) == "an int"
    iv = Interval(Integral, 0, None)
    assert make_constraint(iv) is iv
    with pytest.raises(ValueError, match="unknown constraint 'bool'"):
        make_constraint("bool")
    with pytest.raises(TypeError, match="unknown constraint 3"):
        make_constraint(3)
    with pytest.raises(NotImplementedError):
        Constraint().is_satisfied_by(1)


# --------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "constraints", "error", "message"),
    [
        (0, [POSITIVE], ValueError, "n must be an integer >= 1; got 0."),
        (np.int64(-2), [POSITIVE], ValueError, "n must be an integer >= 1; got -2."),
        (
            2.5,
            [POSITIVE],
            TypeError,
            "n must be an integer >= 1; got float 2.5. Pass a whole number, e.g. n=1.",
        ),
        (
            4.0,
            [POSITIVE],
            TypeError,
            "n must be an integer >= 1; got float 4.0. Pass a whole number, e.g. n=1.",
        ),
        (
            True,
            [POSITIVE],
            TypeError,
            "n must be an integer >= 1; got bool True. Pass a whole number, e.g. n=1.",
        ),
        (
            np.float32(2.0),
            [POSITIVE],
            TypeError,
            "n must be an integer >= 1; got numpy.float32 2.0. Pass a whole number, e.g. n=1.",
        ),
        (
            "3",
            [POSITIVE, None],
            TypeError,
            "n must be an integer >= 1 or None; got str '3'. Pass a whole number, e.g. n=1.",
        ),
        (0, [POSITIVE, None], ValueError, "n must be an integer >= 1 or None; got 0."),
        (
            "x",
            [Interval(Real, 0, 1, closed="left")],
            TypeError,
            "n must be a number in [0, 1); got str 'x'. Pass a number, e.g. n=0.",
        ),
        (
            math.nan,
            [Interval(Real, 0, 1, closed="left")],
            ValueError,
            "n must be a number in [0, 1); got nan.",
        ),
        (
            "avg",
            [Options(("mean", "sum"))],
            ValueError,
            "n must be one of 'mean', 'sum'; got 'avg'.",
        ),
        (None, [Options(("mean", "sum"))], ValueError, "n must be one of 'mean', 'sum'; got None."),
        (
            "no",
            ["boolean"],
            TypeError,
            "n must be True or False; got str 'no'. Flags are not read by truthiness: pass "
            "n=True or n=False.",
        ),
        (
            np.int64(1),
            ["boolean"],
            TypeError,
            "n must be True or False; got numpy.int64 1. Flags are not read by truthiness: pass "
            "n=True or n=False.",
        ),
        (
            3,
            ["boolean", "callable"],
            TypeError,
            "n must be True or False or a callable; got int 3. Flags are not read by truthiness: "
            "pass n=True or n=False.",
        ),
        (1, [str, None], TypeError, "n must be a str or None; got int 1."),
        (
            "a",
            [Interval(Integral, 0, None, closed="left"), Options(("auto",))],
            ValueError,
            "n must be an integer >= 0 or one of 'auto'; got 'a'.",
        ),
    ],
)
def test_messages(value, constraints, error, message):
    with pytest.raises(error) as excinfo:
        check_param(value, "n", constraints)
    assert type(excinfo.value) is error
    assert str(excinfo.value) == message


def test_hint_replaces_the_generated_fix():
    hint = "Pass 0 to skip the baseline."
    cons = [Interval(Integral, 0, None, closed="left", description="a non-negative integer")]
    with pytest.raises(ValueError) as excinfo:
        check_param(-1, "n_random", cons, hint=hint)
    assert str(excinfo.value) == "n_random must be a non-negative integer; got -1. " + hint
    with pytest.raises(TypeError) as excinfo:
        check_param(1.5, "n_random", cons, hint=hint)
    assert str(excinfo.value) == "n_random must be a non-negative integer; got float 1.5. " + hint


def test_description_replaces_the_expected_text():
    with pytest.raises(TypeError) as excinfo:
        check_param(
            "yes", "progress", ["boolean", "callable", None], description="True or a callable"
        )
    assert str(excinfo.value).startswith("progress must be True or a callable; got str 'yes'.")

    @validate_params(
        {"rows": [POSITIVE]},
        descriptions={"rows": "a positive integer (rows)"},
        hints={"rows": "Fix."},
    )
    def f(rows: int = 1) -> int:
        return rows

    with pytest.raises(ValueError) as excinfo:
        f(rows=0)
    assert str(excinfo.value) == "rows must be a positive integer (rows); got 0. Fix."
    with pytest.raises(ValueError, match=r"descriptions name parameters without constraints"):
        validate_params({}, descriptions={"n": "x"})


def test_check_param_returns_plain_python_values():
    for value, expected in [
        (np.int64(3), 3),
        (np.uint8(3), 3),
        (np.float32(0.5), 0.5),
        (np.True_, True),
        (np.str_("sum"), "sum"),
        (None, None),
    ]:
        got = check_param(
            value, "x", [Interval(Real, 0, None, closed="left"), "boolean", Options(("sum",)), None]
        )
        assert got == expected and type(got) is type(expected)


def test_bad_constraint_lists():
    with pytest.raises(TypeError, match="constraints of 'x' must be a list"):
        check_param(1, "x", POSITIVE)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="constraints of 'x' must be a list"):
        check_param(1, "x", "boolean")
    with pytest.raises(ValueError, match="constraints of 'x' must not be empty"):
        check_param(1, "x", [])


# --------------------------------------------------------------------------------------------
# The decorator
# --------------------------------------------------------------------------------------------


@validate_params(
    {
        "n": [POSITIVE],
        "how": [Options(("a", "b"))],
        "flag": ["boolean"],
        "seed": [Interval(Integral, 0, None, closed="left"), None],
        "only": [POSITIVE],
    },
    hints={"seed": "Pass None for fresh entropy."},
)
def _target(
    x: object,
    /,
    n: int = 1,
    *args: object,
    how: str = "a",
    flag: bool = False,
    seed: int | None = None,
    only: int = 1,
    **kwargs: object,
) -> tuple:
    """The docstring of the target."""
    return x, n, args, how, flag, seed, only, kwargs


def test_decorator_passes_good_calls_unchanged():
    assert _target(0) == (0, 1, (), "a", False, None, 1, {})
    assert _target(0, n=2) == (0, 2, (), "a", False, None, 1, {})
    # a keyword named like the positional-only parameter goes to **kwargs, unchecked
    assert _target(0, x=-1)[-1] == {"x": -1}
    assert _target(0, np.int64(2), "extra", how="b", flag=np.True_, seed=0, only=3, z=1) == (
        0,
        np.int64(2),
        ("extra",),
        "b",
        np.True_,
        0,
        3,
        {"z": 1},
    )


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((0, 0), {}, ValueError, r"^n must be an integer >= 1; got 0\.$"),
        ((0,), {"n": True}, TypeError, r"^n must be an integer >= 1; got bool True\."),
        ((0, 2.0), {}, TypeError, r"^n must be an integer >= 1; got float 2\.0\."),
        ((0,), {"how": "c"}, ValueError, r"^how must be one of 'a', 'b'; got 'c'\.$"),
        ((0,), {"flag": 1}, TypeError, r"^flag must be True or False; got int 1\. Flags"),
        ((0,), {"flag": None}, TypeError, r"^flag must be True or False; got NoneType None\."),
        (
            (0,),
            {"seed": -1},
            ValueError,
            r"^seed must be an integer >= 0 or None; got -1\. Pass None for fresh entropy\.$",
        ),
        ((0,), {"only": 0}, ValueError, r"^only must be"),
    ],
)
def test_decorator_rejects(args, kwargs, error, match):
    with pytest.raises(error, match=match) as excinfo:
        _target(*args, **kwargs)
    assert type(excinfo.value) is error


def test_decorator_checks_before_the_body_runs():
    calls = []

    @validate_params({"n": [POSITIVE]})
    def f(n: int) -> None:
        calls.append(n)

    with pytest.raises(ValueError):
        f(0)
    assert calls == []
    f(n=2)
    assert calls == [2]


def test_decorator_preserves_signature_name_and_doc():
    assert _target.__name__ == "_target"
    assert _target.__doc__ == "The docstring of the target."
    assert _target.__module__ == __name__
    assert str(inspect.signature(_target)) == (
        "(x: 'object', /, n: 'int' = 1, *args: 'object', how: 'str' = 'a', flag: 'bool' = "
        "False, seed: 'int | None' = None, only: 'int' = 1, **kwargs: 'object') -> 'tuple'"
    )
    assert inspect.unwrap(_target) is not _target
    assert set(_target.__param_constraints__) == {"n", "how", "flag", "seed", "only"}


def test_decorator_on_methods():
    class A:
        @validate_params({"k": [POSITIVE]})
        def __init__(self, k: int = 1) -> None:
            self.k = k

    assert A(3).k == 3
    with pytest.raises(ValueError, match="k must be an integer >= 1; got 0"):
        A(0)
    with pytest.raises(TypeError, match="k must be an integer >= 1; got bool True"):
        A(k=True)


def test_decorator_rejects_unknown_names():
    with pytest.raises(ValueError, match=r"f has no parameter 'm' to check; its parameters are n"):

        @validate_params({"m": [POSITIVE]})
        def f(n: int) -> None: ...

    with pytest.raises(ValueError, match="has no parameter 'kw' to check"):

        @validate_params({"kw": [POSITIVE]})
        def g(n: int, **kw: int) -> None: ...

    with pytest.raises(ValueError, match=r"hints name parameters without constraints: \['n'\]"):
        validate_params({}, hints={"n": "fix"})


# --------------------------------------------------------------------------------------------
# Every public function
# --------------------------------------------------------------------------------------------

# The parameters of the public functions that have an int default (an integer parameter) or a
# str default (an option); a free-form one would be listed here as (function, parameter).
FREE_FORM: set[tuple[str, str]] = set()


def _public_functions():
    for name in om.__all__:
        obj = getattr(om, name)
        if inspect.isfunction(obj) or (callable(obj) and hasattr(obj, "__wrapped__")):
            yield name, obj


def _int_and_option_parameters():
    cases = []
    for fname, func in _public_functions():
        for pname, p in inspect.signature(func).parameters.items():
            d = p.default
            if (fname, pname) in FREE_FORM or p.kind not in (
                p.KEYWORD_ONLY,
                p.POSITIONAL_OR_KEYWORD,
            ):
                continue
            if isinstance(d, int) and not isinstance(d, bool):
                cases.append((fname, pname, "int"))
            elif isinstance(d, str):
                cases.append((fname, pname, "option"))
    return cases


CASES = _int_and_option_parameters()


def test_the_registry_has_cases():
    kinds = {k for _, _, k in CASES}
    assert kinds == {"int", "option"}
    assert ("rps", "reduction", "option") in CASES


Y = np.array([0, 1, 2, 1])
P = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3]])

#: Known gaps, (function, parameter): why the bad value passes (to be fixed by its owner).
#: (function, parameter) pairs with a known gap, each an expected failure with its reason.
KNOWN_GAPS: dict[tuple[str, str], str] = {}


@pytest.fixture(scope="module")
def csv_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("params") / "predictions.csv"
    rows = "\n".join(f"{y},{p[0]},{p[1]},{p[2]}" for y, p in zip(Y, P.tolist(), strict=True))
    path.write_text("y,p0,p1,p2\n" + rows + "\n")
    return path


def _good_call(fname, func, csv_file):
    """Valid (args, kwargs) for ``func``, or None when the test does not know its inputs."""
    if fname in ("bootstrap",):
        return ("rps", Y, P), {"n_resamples": 20}
    if fname == "compare":
        return ("rps", Y, P, P[:, ::-1]), {"n_resamples": 20}
    if fname == "skill_score":
        return ("rps", Y, P), {}
    if fname == "select_epoch":
        return ([0.3, 0.2, 0.25],), {"mode": "min"}
    if fname == "evaluate":
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame({"y": Y, "p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2]})
        return (frame,), {"truth": "y", "proba": "p"}
    if fname == "evaluate_file":
        pytest.importorskip("pyarrow")
        return (csv_file,), {"truth": "y", "proba": "p"}
    names = list(inspect.signature(func).parameters)
    if names[:2] == ["y_true", "y_proba"]:
        return (Y, P), {}
    if names[:2] == ["y_true", "y_pred"]:
        return (Y, np.array([0, 1, 1, 1])), {}
    if names[:2] == ["y_true", "y_score"]:
        return (Y, np.array([0.1, 0.5, 0.9, 0.4])), {}
    if names[:1] == ["y_proba"]:
        return (P,), {}
    return None


def test_every_case_has_inputs(csv_file):
    missing = [f for f, _, _ in CASES if _good_call(f, getattr(om, f), csv_file) is None]
    assert not missing, f"no inputs known for {sorted(set(missing))}; add them to _good_call"


@pytest.mark.parametrize(("fname", "pname", "kind"), CASES, ids=[f"{f}-{p}" for f, p, _ in CASES])
def test_every_public_int_or_option_parameter_rejects_bad_values(fname, pname, kind, csv_file):
    """Booleans and fractions for an int, unknown strings and None for an option: each raises
    an error that names the parameter."""
    func = getattr(om, fname)
    call = _good_call(fname, func, csv_file)
    if call is None:
        pytest.skip(f"no inputs known for {fname}")
    if (fname, pname) in KNOWN_GAPS:
        pytest.xfail(KNOWN_GAPS[fname, pname])
    args, kwargs = call
    func(*args, **kwargs)  # the good call passes
    bad_values = [True, 2.5] if kind == "int" else ["no-such-option", None]
    for bad in bad_values:
        with pytest.raises((TypeError, ValueError)) as excinfo:
            func(*args, **{**kwargs, pname: bad})
        assert re.search(rf"\b{re.escape(pname)}\b", str(excinfo.value)), (
            f"{fname}({pname}={bad!r}) raised {excinfo.value!r}, which does not name {pname}"
        )
