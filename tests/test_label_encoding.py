"""Matching class labels to their positions: every path agrees with a dictionary look-up."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ordmetrics._core.labels import encode_labels

TEXT = st.text(alphabet=st.sampled_from(["a", "b", "é", "\u4e2d", " ", "0", "\x01"]), max_size=4)


def reference(values: list, labels: list) -> np.ndarray:
    position = {v: i for i, v in enumerate(labels)}
    return np.array([position[v] for v in values], dtype=np.int64)


@settings(max_examples=200, deadline=None)
@given(
    labels=st.lists(TEXT, min_size=2, max_size=6, unique=True),
    picks=st.lists(st.integers(0, 5), min_size=1, max_size=40),
    as_object=st.booleans(),
)
def test_string_labels_match_a_dictionary(labels, picks, as_object):
    """NumPy strings (binary search in the sorted labels) and Python strings (dictionary
    look-ups) give each value its label's position, for prefixes, empty and non-ASCII
    strings."""
    values = [labels[p % len(labels)] for p in picks]
    arr = np.array(values, dtype=object if as_object else str)
    enc = encode_labels(arr, labels=labels, n_classes=len(labels))
    np.testing.assert_array_equal(enc.codes, reference(values, labels))


@pytest.mark.parametrize("as_object", [False, True])
def test_a_string_not_in_labels_is_named(as_object):
    labels = ["mild", "moderate", "severe"]
    arr = np.array(["mild", "mil", "severe", "severer", ""], dtype=object if as_object else str)
    with pytest.raises(ValueError) as info:
        encode_labels(arr, labels=labels, n_classes=3)
    assert str(info.value).startswith(
        "y_true has values not in labels: 'mil', 'severer', '' (in rows 1, 3, 4)."
    )


def test_large_string_column_beyond_any_block():
    """300,001 strings, each label and a missing value: the codes of a dictionary look-up."""
    rng = np.random.default_rng(5)
    labels = ["Fair", "Good", "Very Good", "Premium", "Ideal"]
    idx = rng.integers(0, 5, 300_001)
    values = np.array(labels, dtype=object)[idx]
    values[7] = None
    enc = encode_labels(values, labels=labels, n_classes=5)
    expected = idx.copy()
    expected[7] = -1
    np.testing.assert_array_equal(enc.codes, expected)
    enc_u = encode_labels(np.array(labels)[idx], labels=labels, n_classes=5)
    np.testing.assert_array_equal(enc_u.codes, idx)


def test_labels_ending_in_nul_are_matched_exactly():
    """NumPy drops a string's trailing NULs: such labels are matched by hashing, so that
    'a' is not taken for the label 'a\\x00'."""
    labels = ["a\x00", "b"]
    with pytest.raises(ValueError, match="values not in labels"):
        encode_labels(np.array(["a", "b"]), labels=labels, n_classes=2)
    enc = encode_labels(np.array(["a\x00", "b"], dtype=object), labels=labels, n_classes=2)
    np.testing.assert_array_equal(enc.codes, [0, 1])


def test_mixed_objects_fall_back_to_hashing():
    """Integers in an object array with integer labels: matched as before."""
    enc = encode_labels(np.array([2, 0, 1], dtype=object), labels=[0, 1, 2], n_classes=3)
    np.testing.assert_array_equal(enc.codes, [2, 0, 1])
