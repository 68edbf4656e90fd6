"""The shared parameter descriptions and the decorator that fills them into docstrings."""

import inspect
import re

import pytest

import ordmetrics
from ordmetrics._core.docs import PARAMS, fill_doc

#: The modules whose docstrings are filled from ordmetrics._core.docs.
FILLED = (
    "ordmetrics.metrics.agreement",
    "ordmetrics.metrics.calibration",
    "ordmetrics.metrics.decisions",
    "ordmetrics.evaluation.resampling",
    "ordmetrics.evaluation.retention",
    "ordmetrics.evaluation.worst",
    "ordmetrics.metrics.ranking",
    "ordmetrics.metrics.scoring",
)


def _public_docs():
    for name in ordmetrics.__all__:
        obj = getattr(ordmetrics, name)
        module = getattr(obj, "__module__", None) or ""
        in_filled = module in FILLED or module.rsplit(".", 1)[0] in FILLED  # or a submodule
        if callable(obj) and obj.__doc__ and in_filled:
            yield name, obj.__doc__


@pytest.mark.parametrize(("name", "doc"), list(_public_docs()))
def test_no_placeholder_is_left(name, doc):
    assert not re.search(r"%\(\w+\)s|\{params\}", doc), name


@pytest.mark.parametrize(("name", "doc"), list(_public_docs()))
def test_every_parameter_is_described_once(name, doc):
    obj = getattr(ordmetrics, name)
    if inspect.isclass(obj) or "Parameters\n" not in doc:
        return
    section = doc.split("Parameters\n")[1].split("\n\n    Returns")[0]
    described = re.findall(r"^    (\*{0,2}\w+(?:, \w+)*)(?: :|$)", section, flags=re.MULTILINE)
    names = [n for d in described for n in d.split(", ")]
    assert len(names) == len(set(names)), name
    for p in inspect.signature(obj).parameters.values():
        key = {p.VAR_KEYWORD: f"**{p.name}", p.VAR_POSITIONAL: f"*{p.name}"}.get(p.kind, p.name)
        assert key in names, (name, key)


def test_entries_are_indented_for_a_parameters_section():
    for name, text in PARAMS.items():
        header, *body = text.split("\n")
        assert re.match(r"^    \w+ : \S", header), name
        assert body and all(line.startswith("        ") for line in body), name
        assert all(len(line) <= 96 for line in (header, *body)), name


def _f():
    """Sum.

    Parameters
    ----------
    %(y_true)s
    %(extra)s
        And more.
    """


def test_fill_doc_indents_nests_and_continues():
    def g():
        """Doc.

        Parameters
        ----------
        %(sample_weight)s
            A remark for g.
        """

    fill_doc()(g)
    assert "\n        sample_weight : array-like" in g.__doc__
    assert "is absent.\n            A remark for g.\n" in g.__doc__

    def h():
        pass

    h.__doc__ = _f.__doc__
    fill_doc(extra="    %(nan_policy)s\n        (twice nested)")(h)
    assert PARAMS["y_true"] in h.__doc__
    assert PARAMS["nan_policy"] + "\n        (twice nested)\n        And more." in h.__doc__


def test_fill_doc_errors():
    def unknown():
        """%(no_such_entry)s"""

    with pytest.raises(ValueError, match="no entry %\\(no_such_entry\\)s"):
        fill_doc()(unknown)

    def inline():
        """Text with %(y_true)s inline."""

    with pytest.raises(ValueError, match="not alone on its line"):
        fill_doc()(inline)

    with pytest.raises(ValueError, match="would hide the shared ones"):
        fill_doc(y_true="    y_true : int\n        Something else.")

    def literal():
        """A 95% interval, \\frac{1}{K} and {"raise", "omit"} stay as they are."""

    doc = literal.__doc__
    assert fill_doc()(literal).__doc__ == doc

    def bare():
        pass

    assert fill_doc()(bare).__doc__ is None
