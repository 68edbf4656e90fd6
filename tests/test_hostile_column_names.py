"""Probability columns whose names cannot be paired with the labels: an error, never an order.

Each case is a set of column names and labels that no pairing by name settles (a column naming
no label, a label no column names, two labels or two columns of one normalised name, numbers
that are not positions): :func:`ordmetrics.evaluate` raises a ValueError naming the columns and
labels left unmatched, and the command line exits 2 with that message on one line, rather than
take the columns in the order of the file.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import ordmetrics as om
from ordmetrics.io.table_columns import match_label_columns
from ordmetrics.report.cli import main

NORMALISED = r"once normalised: NFKC, casefolded, every character that is not a letter or a digit"

#: (id, column suffixes, labels, pattern the message must hold)
CASES = [
    (
        "a column and a label unmatched",
        ["strong_dem", "weak_dem", "indep"],
        ["Strong Dem", "Weak Dem", "Independent"],
        r"'p_strong_dem', 'p_weak_dem' are named after classes of labels .* but 'p_indep' are "
        r"not, .*columns left unmatched: 'p_indep'; labels left unmatched: 'Independent'",
    ),
    (
        "no column matches",
        ["a", "b", "c"],
        ["low", "mid", "high"],
        r"none of the probability columns 'p_a', 'p_b', 'p_c' is named after a class of labels "
        r".*labels left unmatched: 'low', 'mid', 'high'",
    ),
    (
        "a label without a column",
        ["low", "mid"],
        ["low", "mid", "high"],
        r"columns left unmatched: none; labels left unmatched: 'high'",
    ),
    (
        "two labels of one normalised name",
        ["strong dem", "x", "weak"],
        ["Strong Dem", "strong-dem", "Weak"],
        r"the classes of labels 'Strong Dem' and 'strong-dem' are one name once normalised "
        r"\('strongdem'",
    ),
    (
        "two columns of one normalised name",
        ["Strong Dem", "strong_dem", "weak"],
        ["Strong Dem", "Weak", "Lean"],
        r"the probability columns 'p_Strong Dem' and 'p_strong_dem' are one name once "
        r"normalised \('strongdem'",
    ),
    (
        "numbers that are not positions",
        ["2", "3", "4"],
        ["low", "mid", "high"],
        r"are numbered 2, 3, 4: neither 0\.\.K-1 nor 1\.\.K for their K = 3",
    ),
    (
        "one number twice",
        ["1", "01", "2"],
        ["low", "mid", "high"],
        r"are numbered 1, 1, 2: neither",
    ),
    (
        "a column that only starts with the prefix",
        ["low", "mid", "high", "value"],
        ["low", "mid", "high"],
        r"but 'p_value' are not.*columns left unmatched: 'p_value'; labels left unmatched: none",
    ),
]


def _frame(suffixes: list[str], labels: list[str]) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(len(suffixes)), size=12)
    y = np.array(labels)[rng.integers(0, len(labels), 12)]
    return pd.DataFrame({"y": y, **{f"p_{s}": P[:, j] for j, s in enumerate(suffixes)}})


@pytest.mark.parametrize(
    ("suffixes", "labels", "pattern"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_evaluate_names_what_is_unmatched(suffixes, labels, pattern) -> None:
    df = _frame(suffixes, labels)
    with pytest.raises(ValueError, match=pattern) as info:
        om.evaluate(df, truth="y", proba="p_", labels=labels, metrics=["rps"])
    if "numbered" not in pattern:
        assert re.search(NORMALISED, str(info.value)), str(info.value)


@pytest.mark.parametrize(
    ("suffixes", "labels", "pattern"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_cli_exits_2_on_one_line(tmp_path, capsys, suffixes, labels, pattern) -> None:
    if len(suffixes) != len(labels):
        pytest.skip("--labels must list one label per column, checked before the names")
    path = tmp_path / "p.csv"
    _frame(suffixes, labels).to_csv(path, index=False)
    args = ["evaluate", str(path), "--truth", "y", "--proba-prefix", "p_"]
    assert main([*args, "--labels", ",".join(labels)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("ordmetrics: error: "), err
    assert re.search(pattern.replace("of labels ", "of --labels "), err), err


def test_exact_names_settle_labels_of_one_normalised_name() -> None:
    """Labels equal once normalised are still told apart by columns named exactly after them."""
    labels = ["A", "a", "b"]
    assert match_label_columns(["p_b", "p_a", "p_A"], labels, prefix="p_") == ["p_A", "p_a", "p_b"]
    with pytest.raises(ValueError, match=r"'A' and 'a' are one name once normalised"):
        match_label_columns(["p_b", "p_a", "p_a_"], labels, prefix="p_")


def test_a_list_contradicting_its_names_is_an_error() -> None:
    labels = ["mild", "moderate", "severe"]
    with pytest.raises(ValueError, match=r"'p_MILD' is listed at place 3 but named after 'mild'"):
        match_label_columns(["p_x", "p_Moderate", "p_MILD"], labels)
    # a list whose names are not all labels, each named one at its place: its order
    assert match_label_columns(["p_mild", "p_x", "p_severe"], labels) == [
        "p_mild",
        "p_x",
        "p_severe",
    ]


def test_labels_from_categories_are_named_in_the_message() -> None:
    df = _frame(["a", "b", "c"], ["low", "mid", "high"])
    df["y"] = pd.Categorical(df["y"], categories=["low", "mid", "high"], ordered=True)
    with pytest.raises(ValueError, match=r"a class of the categories of the ordered truth"):
        om.evaluate(df, truth="y", proba="p_", metrics=["rps"])


def test_integer_labels_and_named_columns_are_an_error() -> None:
    """Labels 0, 1, 2 given and columns named otherwise: no order is guessed from the file."""
    df = _frame(["low", "mid", "high"], ["0", "1", "2"])
    df["y"] = df["y"].astype(int)
    with pytest.raises(ValueError, match=r"none of the probability columns .* labels left "):
        om.evaluate(df, truth="y", proba="p_", labels=[0, 1, 2], metrics=["rps"])


def test_a_list_ending_in_a_short_label_by_chance_is_its_order() -> None:
    """``score_hgb`` ends in the label ``b`` by chance: no naming, so no error."""
    cols = ["score_hgb", "score_rfc", "score_lgm"]
    assert match_label_columns(cols, ["a", "b", "c"]) == cols
