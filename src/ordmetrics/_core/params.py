"""READY: declarative checks of integer, number, option and flag parameters.

How to use
----------
Declare, per parameter, the constraints a value may satisfy; the decorator checks the named
arguments of every call before the body runs::

    from numbers import Integral

    from ordmetrics._core.params import Interval, Options, validate_params

    @validate_params(
        {
            "n_bins": [Interval(Integral, 1, None, closed="left")],
            "strategy": [Options(("uniform", "quantile"))],
            "renormalize": ["boolean"],
            "seed": [Interval(Integral, 0, None, closed="left"), None],
        },
        hints={"n_bins": "Pass a whole number of bins, e.g. n_bins=10."},
    )
    def ece(y_true, y_proba, *, n_bins=10, strategy="uniform", renormalize=False, seed=None):
        ...

A constraint is one of

* :class:`Interval` ``(Integral or Real, left, right, closed=...)``: a number in a range.
  Booleans are never numbers here (``True`` is rejected for an int parameter); NumPy integers
  are integers; floats, even with integral values such as ``4.0``, are not integers; NaN is in
  no interval.
* :class:`Options` ``(("mean", "sum", "none"))``: one of the listed values (order kept for
  the message; a set is sorted).
* ``None``: the value ``None``.
* ``"boolean"``: ``True`` or ``False`` (Python or NumPy booleans; flags are never read by
  truthiness).
* ``"callable"``: any callable.
* a class, e.g. ``str``: an instance of it.

A value passes if it satisfies any constraint of its list. Otherwise a :class:`TypeError` is
raised if no constraint accepts a value of its type (``n_bins=2.5``), and a :class:`ValueError`
if one does but the value is out of range or not an option (``n_bins=0``,
``reduction="avg"``); a value that is not an option is always a :class:`ValueError`. The
message names the argument, what was expected, what arrived and, where there is one, the fix
(a generated one for a value of the wrong type; ``hints`` replaces it, as above)::

    n_bins must be an integer >= 1; got float 2.5. Pass a whole number of bins, e.g. n_bins=10.
    n_bins must be an integer >= 1; got 0. Pass a whole number of bins, e.g. n_bins=10.
    seed must be an integer >= 0 or None; got bool True. Pass a whole number, e.g. seed=1.
    strategy must be one of 'uniform', 'quantile'; got 'equal'.
    renormalize must be True or False; got str 'no'. Flags are not read by truthiness: pass
    renormalize=True or renormalize=False.

The checks cost well under a microsecond per argument passed (arguments left at their defaults
are not checked), so the decorator suits the hottest public functions.

The helpers that check options inside the metrics (``check_option``, ``check_flag`` of
:mod:`ordmetrics._core.options`) give the same messages, built on these constraints.

``description=`` on a constraint replaces its generated text (``"a positive integer"``),
``descriptions={name: text}`` the text of a whole parameter (``"True, False or a callable"``),
and ``hints={name: text}`` replaces the generated fix. Parameters not passed in a call (their
defaults) are not checked. Values that do not arrive as arguments (attributes set by
``set_params``, options inside a dict) are checked with :func:`check_param`, which gives the
same messages and returns the value as a plain ``int``/``float``/``bool``/``str``.

The wrapped function keeps its signature, docstring and name (:func:`functools.wraps`); its
constraints are in the ``__param_constraints__`` attribute (used by the tests that check every
public function).
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Literal, ParamSpec, TypeVar

import numpy as np

from ordmetrics._core.messages import type_name

__all__ = [
    "Constraint",
    "Interval",
    "Options",
    "check_param",
    "make_constraint",
    "validate_params",
]

P = ParamSpec("P")
R = TypeVar("R")

#: What a constraint list may hold: a :class:`Constraint`, ``None``, ``"boolean"``,
#: ``"callable"`` or a class.
ConstraintLike = Any

_BOOL_TYPES = (bool, np.bool_)


def _shown(value: Any) -> str:
    """How an arrived value is written in a message: NumPy scalars as the Python number."""
    if isinstance(value, np.generic) and not isinstance(value, np.str_ | np.bytes_):
        try:
            return repr(value.item())
        except (TypeError, ValueError):  # pragma: no cover - exotic scalars
            pass
    return repr(value)


class Constraint:
    """One acceptable kind of value of a parameter."""

    #: Text of what is expected, e.g. ``"an integer >= 1"``.
    description: str = ""

    def is_satisfied_by(self, value: Any) -> bool:
        """True if ``value`` is acceptable."""
        raise NotImplementedError

    def accepts_type(self, value: Any) -> bool:
        """True if a value of this type could be acceptable (a failure is then a ValueError)."""
        return self.is_satisfied_by(value)

    def fix(self, name: str) -> str:
        """A default sentence telling how to fix a value of the wrong type ("" for none)."""
        return ""

    def __str__(self) -> str:
        return self.description


class _NoneConstraint(Constraint):
    description = "None"

    def is_satisfied_by(self, value: Any) -> bool:
        return value is None


class _Boolean(Constraint):
    description = "True or False"

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, _BOOL_TYPES)

    def fix(self, name: str) -> str:
        return f"Flags are not read by truthiness: pass {name}=True or {name}=False."


class _Callable(Constraint):
    description = "a callable"

    def is_satisfied_by(self, value: Any) -> bool:
        return callable(value)


class _InstanceOf(Constraint):
    def __init__(self, kind: type) -> None:
        self.kind = kind
        name = kind.__qualname__
        self.description = f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, self.kind)


class Interval(Constraint):
    """A number in a range: ``Interval(Integral, 1, None, closed="left")`` is ``n >= 1``.

    Parameters
    ----------
    kind : numbers.Integral or numbers.Real
        Integers (Python or NumPy integers, never booleans or floats) or real numbers (also
        integers; never booleans; NaN is in no interval).
    left, right : number or None
        The bounds; ``None`` for no bound on that side.
    closed : {"both", "left", "right", "neither"}, default="both"
        Which bounds belong to the interval.
    description : str, optional
        Replaces the generated text of the message, e.g. ``"a positive integer"``.

    Examples
    --------
    >>> from numbers import Integral, Real
    >>> str(Interval(Integral, 2, None, closed="left"))
    'an integer >= 2'
    >>> str(Interval(Real, 0, 1, closed="left"))
    'a number in [0, 1)'
    >>> Interval(Integral, 1, None, closed="left").is_satisfied_by(True)
    False
    """

    def __init__(
        self,
        kind: type,
        left: float | None,
        right: float | None,
        *,
        closed: Literal["both", "left", "right", "neither"] = "both",
        description: str | None = None,
    ) -> None:
        if kind not in (numbers.Integral, numbers.Real):
            raise TypeError(f"kind must be numbers.Integral or numbers.Real; got {kind!r}.")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(
                f"closed must be one of 'both', 'left', 'right', 'neither'; got {closed!r}."
            )
        if left is not None and right is not None and left > right:
            raise ValueError(f"left must be <= right; got left={left!r}, right={right!r}.")
        self.kind = kind
        self.left = left
        self.right = right
        self.closed = closed
        self.integral = kind is numbers.Integral
        self._left_closed = closed in ("both", "left")
        self._right_closed = closed in ("both", "right")
        self.description = description or self._describe()

    def _describe(self) -> str:
        noun = "an integer" if self.integral else "a number"
        lo, hi = self.left, self.right
        if lo is None and hi is None:
            return noun
        if hi is None:
            return f"{noun} {'>=' if self._left_closed else '>'} {lo}"
        if lo is None:
            return f"{noun} {'<=' if self._right_closed else '<'} {hi}"
        return (
            f"{noun} in {'[' if self._left_closed else '('}{lo}, "
            f"{hi}{']' if self._right_closed else ')'}"
        )

    def accepts_type(self, value: Any) -> bool:
        t = type(value)
        if t is int or (t is float and not self.integral):
            return True  # the common case, without the checks of the abstract classes
        if isinstance(value, _BOOL_TYPES):
            return False
        return isinstance(value, numbers.Integral if self.integral else numbers.Real)

    def is_satisfied_by(self, value: Any) -> bool:
        if not self.accepts_type(value):
            return False
        lo, hi = self.left, self.right
        try:
            if lo is not None and not (value >= lo if self._left_closed else value > lo):
                return False
            if hi is not None and not (value <= hi if self._right_closed else value < hi):
                return False
            return bool(value == value)  # NaN is in no interval
        except TypeError:  # pragma: no cover - a Real that cannot be compared
            return False

    def example(self) -> Any:
        """A value inside the interval, for the message's fix."""
        lo, hi = self.left, self.right
        step = 1 if self.integral else 0.5
        if lo is not None:
            candidate = max(lo, 1) if self.integral and hi is None else lo
            if not self._left_closed and candidate == lo:
                candidate = lo + step if hi is None or lo + step < hi else (lo + hi) / 2
            return int(candidate) if self.integral else candidate
        if hi is not None:
            candidate = hi if self._right_closed else hi - step
            return int(candidate) if self.integral else candidate
        return 1 if self.integral else 1.0

    def fix(self, name: str) -> str:
        if self.integral:
            return f"Pass a whole number, e.g. {name}={self.example()!r}."
        return f"Pass a number, e.g. {name}={self.example()!r}."


class Options(Constraint):
    """One of a fixed set of values, e.g. ``Options(("mean", "sum", "none"))``.

    Parameters
    ----------
    values : iterable
        The accepted values, in the order the message lists them (a set is sorted).
    description : str, optional
        Replaces the generated text ``"one of 'mean', 'sum', 'none'"``.

    Examples
    --------
    >>> str(Options(("mean", "sum", "none")))
    "one of 'mean', 'sum', 'none'"
    >>> Options({"b", "a"}).values
    ('a', 'b')
    """

    def __init__(self, values: Iterable[Any], *, description: str | None = None) -> None:
        if isinstance(values, str):
            raise TypeError(f"values must be a collection of options, not a string: {values!r}.")
        ordered = (
            tuple(sorted(values, key=repr))
            if isinstance(values, AbstractSet)
            else tuple(dict.fromkeys(values))
        )
        if not ordered:
            raise ValueError("values must hold at least one option.")
        self.values = ordered
        self._set = frozenset(ordered)
        self._bools = any(isinstance(v, bool) for v in ordered)
        self.description = description or "one of " + ", ".join(repr(v) for v in ordered)

    def is_satisfied_by(self, value: Any) -> bool:
        if type(value) is str:  # the common case first
            return value in self._set
        if isinstance(value, _BOOL_TYPES) and not self._bools:
            return False  # True == 1: a flag is not the option 1
        try:
            return value in self._set
        except TypeError:  # unhashable
            return False

    def accepts_type(self, value: Any) -> bool:
        return True  # anything may be compared with the options: a miss is a ValueError


def make_constraint(constraint: ConstraintLike) -> Constraint:
    """The :class:`Constraint` for one entry of a constraint list.

    Examples
    --------
    >>> make_constraint(None).is_satisfied_by(None)
    True
    >>> str(make_constraint("boolean")), str(make_constraint(str))
    ('True or False', 'a str')
    """
    if isinstance(constraint, Constraint):
        return constraint
    if constraint is None:
        return _NoneConstraint()
    if isinstance(constraint, str):
        if constraint == "boolean":
            return _Boolean()
        if constraint == "callable":
            return _Callable()
        raise ValueError(
            f"unknown constraint {constraint!r}; use 'boolean', 'callable', None, a class, an "
            "Interval or Options."
        )
    if isinstance(constraint, type):
        return _InstanceOf(constraint)
    raise TypeError(f"unknown constraint {constraint!r} of type {type_name(constraint)}.")


def _join(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def _plain(value: Any) -> Any:
    """The accepted value as a plain Python object (int, float, bool, str) where it is one."""
    if isinstance(value, _BOOL_TYPES):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.str_):
        return str(value)
    return value


class _Checker:
    """The compiled check of one parameter: constraints, message text and fix."""

    __slots__ = ("constraints", "description", "hint", "name")

    def __init__(
        self,
        name: str,
        constraints: Sequence[ConstraintLike],
        hint: str | None,
        description: str | None = None,
    ) -> None:
        if isinstance(constraints, str | Constraint) or constraints is None:
            raise TypeError(
                f"the constraints of {name!r} must be a list, e.g. [Interval(...), None]; got "
                f"{constraints!r}."
            )
        made = [make_constraint(c) for c in constraints]
        if not made:
            raise ValueError(f"the constraints of {name!r} must not be empty.")
        self.name = name
        self.constraints = tuple(made)
        self.hint = hint
        self.description = description

    def ok(self, value: Any) -> bool:
        for c in self.constraints:
            if c.is_satisfied_by(value):
                return True
        return False

    def error(self, value: Any) -> TypeError | ValueError:
        expected = self.description or _join([c.description for c in self.constraints])
        right_type = any(c.accepts_type(value) for c in self.constraints)
        if right_type:
            fix = self.hint or ""
            got = _shown(value)
        else:
            fix = self.hint or next(
                (f for f in (c.fix(self.name) for c in self.constraints) if f), ""
            )
            got = f"{type_name(value)} {_shown(value)}"
        message = f"{self.name} must be {expected}; got {got}." + (f" {fix}" if fix else "")
        return ValueError(message) if right_type else TypeError(message)

    def __call__(self, value: Any) -> Any:
        if not self.ok(value):
            raise self.error(value)
        return _plain(value)


def check_param(
    value: Any,
    name: str,
    constraints: Sequence[ConstraintLike],
    *,
    hint: str | None = None,
    description: str | None = None,
) -> Any:
    """Check one value against its constraints; return it as a plain Python object.

    The same check and message as :func:`validate_params`, for values that do not arrive as
    arguments of a call (attributes, options inside a dict).

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        The parameter's name, as the message shows it.
    constraints : list
        As in :func:`validate_params`.
    hint : str, optional
        The fix the message ends with, replacing the generated one.
    description : str, optional
        What is expected, replacing the text joined from the constraints.

    Returns
    -------
    object
        ``value``; NumPy integers, floats, booleans and strings as the Python ``int``,
        ``float``, ``bool`` and ``str``.

    Raises
    ------
    TypeError
        If no constraint accepts a value of this type.
    ValueError
        If the type is right but the value is out of range or not an option.

    Examples
    --------
    >>> from numbers import Integral
    >>> import numpy as np
    >>> check_param(np.int64(3), "k", [Interval(Integral, 0, None, closed="left")])
    3
    >>> check_param(-1, "k", [Interval(Integral, 0, None, closed="left")])
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer >= 0; got -1.
    >>> check_param(True, "k", [Interval(Integral, 0, None, closed="left")])
    Traceback (most recent call last):
    ...
    TypeError: k must be an integer >= 0; got bool True. Pass a whole number, e.g. k=1.
    """
    return _Checker(name, constraints, hint, description)(value)


def validate_params(
    constraints: Mapping[str, Sequence[ConstraintLike]],
    *,
    hints: Mapping[str, str] | None = None,
    descriptions: Mapping[str, str] | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: check the named arguments of every call before the body runs.

    Parameters
    ----------
    constraints : mapping of str to list
        For each checked parameter, the constraints a value may satisfy (any one suffices):
        :class:`Interval`, :class:`Options`, ``None``, ``"boolean"``, ``"callable"`` or a class.
    hints : mapping of str to str, optional
        Per parameter, the fix the message ends with, replacing the generated one.
    descriptions : mapping of str to str, optional
        Per parameter, what is expected, replacing the text joined from the constraints
        (``"True, False or a callable"``).

    Returns
    -------
    callable
        The decorator. The wrapped function keeps the signature, name and docstring; its
        checkers are in ``__param_constraints__``.

    Raises
    ------
    ValueError
        At decoration, if a name is not a parameter of the function (a typo would otherwise
        silently check nothing).

    Examples
    --------
    >>> from numbers import Integral
    >>> @validate_params(
    ...     {"n": [Interval(Integral, 1, None, closed="left")], "how": [Options(("a", "b"))]}
    ... )
    ... def f(x, n=1, *, how="a"):
    ...     return x * n
    >>> f(2, 3)
    6
    >>> f(2, 0)
    Traceback (most recent call last):
    ...
    ValueError: n must be an integer >= 1; got 0.
    >>> f(2, how="c")
    Traceback (most recent call last):
    ...
    ValueError: how must be one of 'a', 'b'; got 'c'.
    >>> import inspect
    >>> str(inspect.signature(f))
    "(x, n=1, *, how='a')"
    """
    hints = dict(hints or {})
    descriptions = dict(descriptions or {})
    for what, given in (("hints", hints), ("descriptions", descriptions)):
        unknown = set(given) - set(constraints)
        if unknown:
            raise ValueError(f"{what} name parameters without constraints: {sorted(unknown)}.")

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        params = inspect.signature(func).parameters
        variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        positional = [
            n for n, p in params.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        by_name: dict[str, tuple[Callable[[Any], bool], _Checker]] = {}
        by_position: list[tuple[int, Callable[[Any], bool], _Checker]] = []
        for name, cons in constraints.items():
            if name not in params or params[name].kind in variadic:
                named = ", ".join(n for n, p in params.items() if p.kind not in variadic)
                raise ValueError(
                    f"{func.__qualname__} has no parameter {name!r} to check; its parameters "
                    f"are {named}."
                )
            checker = _Checker(name, cons, hints.get(name), descriptions.get(name))
            cs = checker.constraints
            ok = cs[0].is_satisfied_by if len(cs) == 1 else checker.ok
            if params[name].kind != inspect.Parameter.POSITIONAL_ONLY:
                by_name[name] = (ok, checker)
            if name in positional:
                by_position.append((positional.index(name), ok, checker))
        by_position.sort(key=lambda entry: entry[0])
        first = by_position[0][0] if by_position else len(params)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            # only the arguments passed are checked (defaults are not): positional ones by
            # position, keyword ones by name
            if len(args) > first:
                n_args = len(args)
                for pos, ok, checker in by_position:
                    if pos < n_args and not ok(args[pos]):
                        raise checker.error(args[pos])
            if kwargs:
                for name, value in kwargs.items():
                    entry = by_name.get(name)
                    if entry is not None and not entry[0](value):
                        raise entry[1].error(value)
            return func(*args, **kwargs)

        wrapper.__param_constraints__ = {  # type: ignore[attr-defined]
            name: checker.constraints for name, (_, checker) in by_name.items()
        } | {checker.name: checker.constraints for _, _, checker in by_position}
        return wrapper

    return decorate
