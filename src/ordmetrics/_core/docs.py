"""Numpydoc descriptions of the parameters that many public functions share, written once.

Each entry of :data:`PARAMS` is the whole numpydoc entry of one parameter: its header line
and its description, indented as in the "Parameters" section of a function's docstring.
:func:`fill_doc` puts them into docstrings. A docstring asks for an entry with a line that
holds only the placeholder ``%(name)s``; the entry takes the indentation of that line, and the
lines after it that are indented like a description continue the entry's description, which
is how a function adds what holds for it alone::

    @fill_doc()
    def f(y_true, y_proba, *, sample_weight=None):
        '''...

        Parameters
        ----------
        %(y_true)s
        %(y_proba)s
        %(sample_weight)s
            A remark that holds for ``f`` alone.
        '''

The placeholders are ``%(name)s`` rather than ``{name}`` because docstrings use braces for
LaTeX (``\\frac{1}{K}``) and for sets of options (``{"raise", "omit"}``); they are replaced by
name, never with the ``%`` operator, so a literal ``%`` (``95%``) is safe.

Where an input means something else, the entry has a variant named after the case: ``_pred``
for functions of hard predictions ``y_pred`` (:mod:`ordmetrics.metrics.agreement`), ``_score`` for
functions of a score ``y_score`` (:mod:`ordmetrics.metrics.ranking`), ``_decide`` for
:func:`~ordmetrics.metrics.decisions.decide`, which has no ``y_true``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["PARAMS", "fill_doc"]

F = TypeVar("F", bound=Callable[..., Any])

# Pieces shared by several variants of one entry.
_LABELS_OF_COLUMNS = """\
    labels : sequence, optional
        The class labels in ordinal order, i.e. the label of each column of ``y_proba``."""

_NEVER_SORTED = """\
        A list, tuple or array of distinct values without missing ones; a set or dict is a
        TypeError, since it has no order. Integer labels are matched exactly, at any size.
        String labels are never sorted: without ``labels`` they are an error."""

_FREQUENCY_WEIGHTS = """\
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative frequency weights: integer weights give exactly the result of repeating
        rows"""

_NAN_POLICY = '    nan_policy : {"raise", "omit", "propagate"}, default "raise"'

#: The entries, by placeholder name.
PARAMS: Mapping[str, str] = {
    # ---- true classes ---------------------------------------------------------------------
    "y_true": """\
    y_true : array-like of shape (n_samples,)
        True classes: integers ``0..K-1`` when ``labels`` is None; otherwise values from
        ``labels``. A pandas ordered Categorical or polars Enum carries its own order.
        Lists, NumPy arrays and pandas/polars Series (or one-column frames) are accepted.
        Booleans need ``labels=[False, True]``; booleans mixed with numbers are a TypeError
        (``True`` would count as 1).""",
    # A 1-D score needs only the order of the classes, not the integers 0..K-1.
    "y_true_score": """\
    y_true : array-like of shape (n_samples,)
        True ordinal classes. With a 1-D score: any non-negative integers (only their order
        matters), or values listed in ``labels``. With a probability matrix: integers
        ``0..K-1`` or values of ``labels``, one per column. A pandas ordered Categorical or a
        polars Enum carries its own order; strings without ``labels`` are an error.""",
    # ---- predictions ----------------------------------------------------------------------
    "y_proba": """\
    y_proba : array-like of shape (n_samples, K)
        Predicted probabilities, one column per class in ordinal order; each row must lie in
        [0, 1] and sum to 1 (tolerance max(1e-6, K x 5e-7): rounding to 6 decimals passes).
        Strings and complex numbers are a TypeError, never parsed or cut to their real part.""",
    "y_pred": """\
    y_pred : array-like of shape (n_samples,)
        Predicted classes, in the same form as ``y_true``. A predicted label outside the label
        set is an error, like a true one.""",
    "y_score": """\
    y_score : array-like of shape (n_samples,) or (n_samples, K)
        A finite score per row, higher meaning a higher class; or predicted probabilities
        (rows in [0, 1] summing to 1, one column per class in ordinal order), which are
        ranked by their expected grade sum_k k p_k.""",
    # ---- class labels ---------------------------------------------------------------------
    "labels": f"{_LABELS_OF_COLUMNS}\n{_NEVER_SORTED}",
    # Without labels the label set is implied by the data.
    "labels_pred": f"""\
    labels : sequence, optional
        The class labels in ordinal order. Without it the classes are the integers
        ``0..max(y_true, y_pred)``, including those absent from the data.
{_NEVER_SORTED}""",
    "labels_score": f"""\
    labels : sequence, optional
        The class labels in ordinal order (the column order of a probability matrix).
{_NEVER_SORTED}""",
    # decide has no y_true: the labels name its output.
    "labels_decide": f"""\
{_LABELS_OF_COLUMNS}
        When given, the labels are returned instead of class indices.""",
    # ---- weights --------------------------------------------------------------------------
    "sample_weight": f"{_FREQUENCY_WEIGHTS}, and a row of weight 0 is absent.",
    # A row of weight 0 still counts towards the implied label set 0..max(y_true, y_pred).
    "sample_weight_pred": (
        f"{_FREQUENCY_WEIGHTS}, and the result does not change when all weights are scaled "
        "by one factor."
    ),
    # Weighted counts (a confusion matrix) scale with the weights; without labels a row of
    # weight 0 still counts towards the implied label set, as with "_pred".
    "sample_weight_counts": f"""\
{_FREQUENCY_WEIGHTS}; a cell counts the total weight of its rows. Without ``labels``, a
        row of weight 0 still counts towards the implied classes ``0..max(y_true, y_pred)``.""",
    # ---- missing values (the inputs that can be missing differ) ---------------------------
    "nan_policy": f"""\
{_NAN_POLICY}
        Missing values (NaN in ``y_proba`` or ``sample_weight``, missing ``y_true``): raise an
        error, drop those rows, or return NaN. Masked entries of a NumPy masked array are
        missing values.""",
    "nan_policy_pred": f"""\
{_NAN_POLICY}
        Missing values (in ``y_true``, ``y_pred`` or ``sample_weight``, masked entries of a
        NumPy masked array): raise an error, drop those rows, or return NaN.""",
    "nan_policy_score": f"""\
{_NAN_POLICY}
        Missing values (NaN score or probability, missing ``y_true``, NaN weight, masked
        entries of a NumPy masked array): raise an error, drop those rows, or return NaN.""",
    # ---- options --------------------------------------------------------------------------
    "renormalize": """\
    renormalize : bool, default False
        Rescale every row of ``y_proba`` to sum to 1 first, instead of raising for rows that
        do not. Only ``True`` or ``False`` (anything else is a TypeError, never read by its
        truthiness).""",
    "by": """\
    by : str, callable or array-like of shape (n_samples,), default "rps"
        The per-sample score that ranks the rows, lower is better: a scoring rule name
        (``"rps"``, ``"sa_rps"``, ``"brier"``, ``"log_loss"``, ``"pbs"``, ``"pll"``); a
        callable, called as ``by(y_true, y_proba)`` with the arguments as given here, plus
        ``labels=labels`` when it has a ``labels`` parameter and ``labels`` is given, and
        ``reduction="none"`` when it has a ``reduction`` parameter (so ``ordmetrics.rps``
        itself works), returning one score per row (``+inf`` allowed, NaN not); or an array
        of N finite scores.""",
}

#: A placeholder alone on its line, with the indentation that its entry takes.
_PLACEHOLDER = re.compile(r"^(?P<indent>[ ]*)%\((?P<name>\w+)\)s[ ]*$", re.MULTILINE)
_ANY_PLACEHOLDER = re.compile(r"%\(\w+\)s")
#: How deep entries may hold placeholders themselves (a module's list of its entries).
_MAX_DEPTH = 4


def fill_doc(**extra: str) -> Callable[[F], F]:
    """A decorator that fills the ``%(name)s`` placeholders of a docstring.

    Parameters
    ----------
    **extra : str
        Entries of the decorated functions' module, beside :data:`PARAMS` (whose names they
        may not take). They may hold placeholders themselves, e.g. a module's list of the
        entries all its functions share.

    Returns
    -------
    callable
        The decorator: it replaces every placeholder line of the docstring by its entry,
        indented like the line, and returns the function itself.

    Raises
    ------
    ValueError
        If an extra entry takes the name of a shared one, or (when the decorator is
        applied) a placeholder has no entry or does not stand alone on its line.
    """
    clash = sorted(set(extra) & set(PARAMS))
    if clash:
        raise ValueError(f"fill_doc: extra entries {clash} would hide the shared ones.")
    blocks = {**PARAMS, **extra}

    def decorate(func: F) -> F:
        if func.__doc__:  # None under python -OO
            func.__doc__ = _fill(func.__doc__, blocks, f"{func.__module__}.{func.__qualname__}")
        return func

    return decorate


def _fill(doc: str, blocks: Mapping[str, str], owner: str) -> str:
    def entry(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in blocks:
            raise ValueError(
                f"docstring of {owner}: no entry %({name})s; known: {', '.join(sorted(blocks))}."
            )
        text = textwrap.dedent(blocks[name].strip("\n"))
        return textwrap.indent(text, match["indent"])

    for _ in range(_MAX_DEPTH):
        doc, n = _PLACEHOLDER.subn(entry, doc)
        if not n:
            break
    left = _ANY_PLACEHOLDER.search(doc)
    if left:
        raise ValueError(
            f"docstring of {owner}: placeholder {left.group()} is not alone on its line, or "
            f"entries hold placeholders more than {_MAX_DEPTH} deep."
        )
    return doc
