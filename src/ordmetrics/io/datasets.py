"""Example data: out-of-fold predictions of two real models on the diamonds ``cut`` grades.

The packaged file ``_data/diamonds_cut_oof.csv.gz`` holds, for each of the 53,940 diamonds of the
ggplot2 ``diamonds`` data set (MIT licence, ggplot2 authors), the true ``cut`` grade and the
out-of-fold predicted probabilities of the five grades from two scikit-learn models: ``"hgb"``
(gradient-boosted trees) and ``"logit"`` (multinomial logistic regression). See
``_data/README.md`` beside this module for how it was made.

:func:`load_diamonds_cut` needs only NumPy; :func:`load_diamonds_cut_frame` returns the whole
table as a pandas or polars data frame.
"""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ordmetrics._core.params import Options, validate_params

__all__ = [
    "CUT_LABELS",
    "MODELS",
    "ExampleData",
    "example_path",
    "load_diamonds_cut",
    "load_diamonds_cut_frame",
]

CUT_LABELS: tuple[str, ...] = ("Fair", "Good", "Very Good", "Premium", "Ideal")
"""The ``cut`` grades, worst to best: the ordinal order and the column order of ``y_proba``."""

MODELS: tuple[str, ...] = ("hgb", "logit")
"""The models whose predictions the example file holds."""

_FILENAME = "diamonds_cut_oof.csv.gz"
_FRAME_BACKENDS = ("pandas", "polars", "pyarrow")


@dataclass(frozen=True, eq=False)
class ExampleData:
    """True grades and one model's predicted probabilities for the diamonds ``cut`` example.

    Attributes
    ----------
    y_true : ndarray of str, shape (n_samples,)
        The true grade of every diamond, one of ``labels``.
    y_proba : ndarray of float64, shape (n_samples, n_classes)
        Out-of-fold predicted probabilities; column ``j`` is the probability of ``labels[j]``.
        Every entry is at least 1e-6 and every row sums to 1.
    labels : tuple of str
        The grades in ordinal order, worst to best (:data:`CUT_LABELS`).
    model : str
        The model that made ``y_proba``, one of :data:`MODELS`.
    fold : ndarray of int, shape (n_samples,)
        The cross-validation fold (0 to 4) whose held-out part held the row.
    row : ndarray of int, shape (n_samples,)
        The 0-based row index in the source ``diamonds`` table.
    """

    y_true: np.ndarray
    y_proba: np.ndarray
    labels: tuple[str, ...]
    model: str
    fold: np.ndarray
    row: np.ndarray

    def __repr__(self) -> str:
        n_samples, n_classes = self.y_proba.shape
        return f"ExampleData(model={self.model!r}, n_samples={n_samples}, n_classes={n_classes})"


def example_path() -> Path:
    """Return the path of the packaged example file.

    Returns
    -------
    Path
        Path of ``diamonds_cut_oof.csv.gz``, a gzip-compressed CSV with columns ``row``,
        ``fold``, ``cut`` and ``{model}_{grade}`` (spaces in grades written as ``_``), e.g.
        ``hgb_Very_Good``.

    Examples
    --------
    >>> example_path().name
    'diamonds_cut_oof.csv.gz'
    """
    return Path(__file__).parent.parent / "_data" / _FILENAME


def _read_text() -> tuple[list[str], str]:
    """Return the header fields and the whole decompressed text of the example file."""
    text = gzip.decompress(example_path().read_bytes()).decode("ascii")
    header = text[: text.index("\n")].split(",")
    return header, text


@validate_params({"model": [Options(MODELS, description=f"one of {MODELS}")]})
def load_diamonds_cut(model: str = "hgb") -> ExampleData:
    """Load the true ``cut`` grades of the diamonds and one model's predicted probabilities.

    Parameters
    ----------
    model : {"hgb", "logit"}, default="hgb"
        Whose predictions to load: ``"hgb"``, a histogram gradient-boosted tree classifier, or
        ``"logit"``, a multinomial logistic regression on standardised features. Both were fitted
        with 5-fold stratified cross-validation, so every row is predicted by a model that did
        not see it.

    Returns
    -------
    ExampleData
        ``y_true`` (grade names), ``y_proba`` of shape (53940, 5) with columns in
        :data:`CUT_LABELS` order, ``labels``, ``model``, ``fold`` and ``row``.

    Raises
    ------
    ValueError
        If ``model`` is not one of :data:`MODELS`.

    See Also
    --------
    load_diamonds_cut_frame : The whole table, both models, as a data frame.

    Notes
    -----
    The probabilities are stored with 6 decimals; each row sums to exactly 1 and no entry is
    below 1e-6, which changes a model output by at most a few millionths.

    Examples
    --------
    >>> ex = load_diamonds_cut()
    >>> ex.y_proba.shape
    (53940, 5)
    >>> ex.labels
    ('Fair', 'Good', 'Very Good', 'Premium', 'Ideal')
    >>> str(ex.y_true[0]), ex.y_proba[0].round(3).tolist()
    ('Ideal', [0.0, 0.003, 0.151, 0.053, 0.793])
    """
    header, text = _read_text()
    prob_columns = [f"{model}_{label.replace(' ', '_')}" for label in CUT_LABELS]
    int_columns = [header.index("row"), header.index("fold")]
    float_columns = [header.index(name) for name in prob_columns]

    ints = np.loadtxt(
        io.StringIO(text), delimiter=",", skiprows=1, usecols=int_columns, dtype=np.int64
    )
    y_proba = np.loadtxt(
        io.StringIO(text), delimiter=",", skiprows=1, usecols=float_columns, dtype=np.float64
    )
    y_true = np.loadtxt(
        io.StringIO(text), delimiter=",", skiprows=1, usecols=header.index("cut"), dtype="U9"
    )
    return ExampleData(
        y_true=y_true,
        y_proba=y_proba,
        labels=CUT_LABELS,
        model=model,
        fold=ints[:, 1],
        row=ints[:, 0],
    )


@validate_params({"backend": [Options(_FRAME_BACKENDS, description=f"one of {_FRAME_BACKENDS}")]})
def load_diamonds_cut_frame(backend: str = "pandas") -> Any:
    """Load the whole example table, both models, as a data frame.

    Parameters
    ----------
    backend : {"pandas", "polars", "pyarrow"}, default="pandas"
        The data-frame library to return.

    Returns
    -------
    pandas.DataFrame, polars.DataFrame or pyarrow.Table
        Columns ``row``, ``fold``, ``cut`` and ``{model}_{grade}`` for both models (e.g.
        ``hgb_Very_Good``). ``cut`` is an ordered ``Categorical`` (pandas), an ``Enum``
        (polars) or an ordered dictionary column (pyarrow) with the categories in
        :data:`CUT_LABELS` order. :func:`ordmetrics.evaluate` reads the order of the first
        two itself; for a pyarrow Table pass ``labels=CUT_LABELS``.

    Raises
    ------
    ValueError
        If ``backend`` is not ``"pandas"``, ``"polars"`` or ``"pyarrow"``.
    ImportError
        If the requested library is not installed.

    Examples
    --------
    >>> df = load_diamonds_cut_frame()  # doctest: +SKIP
    >>> df.shape  # doctest: +SKIP
    (53940, 13)
    >>> table = load_diamonds_cut_frame("pyarrow")  # doctest: +SKIP
    >>> table.num_rows, table.schema.field("cut").type  # doctest: +SKIP
    (53940, DictionaryType(dictionary<values=string, indices=int8, ordered=1>))
    """
    try:
        if backend == "pandas":
            import pandas as lib
        elif backend == "polars":
            import polars as lib
        else:
            import pyarrow as lib
    except ImportError as exc:
        raise ImportError(
            f"load_diamonds_cut_frame(backend={backend!r}) needs {backend}; "
            f"install it with `pip install {backend}`"
        ) from exc

    header, text = _read_text()
    if backend == "pandas":
        dtypes = {"row": "int64", "fold": "int64"}
        dtypes.update({name: "float64" for name in header[3:]})
        dtypes["cut"] = lib.CategoricalDtype(list(CUT_LABELS), ordered=True)
        return lib.read_csv(io.StringIO(text), dtype=dtypes)

    if backend == "pyarrow":
        return _arrow_table(text, header)

    overrides = {"row": lib.Int64, "fold": lib.Int64, "cut": lib.Enum(list(CUT_LABELS))}
    overrides.update({name: lib.Float64 for name in header[3:]})
    return lib.read_csv(io.BytesIO(text.encode("ascii")), schema_overrides=overrides)


def _arrow_table(text: str, header: list[str]) -> Any:
    """The example as a pyarrow Table, ``cut`` an ordered dictionary in CUT_LABELS order."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    types = {name: pa.float64() for name in header[3:]}
    types.update(row=pa.int64(), fold=pa.int64(), cut=pa.string())
    table = pcsv.read_csv(
        io.BytesIO(text.encode("ascii")), convert_options=pcsv.ConvertOptions(column_types=types)
    )
    grades = pa.array(CUT_LABELS, pa.string())
    codes = pc.index_in(table["cut"], value_set=grades).combine_chunks().cast(pa.int8())
    cut = pa.DictionaryArray.from_arrays(codes, grades, ordered=True)
    return table.set_column(header.index("cut"), "cut", cut)
