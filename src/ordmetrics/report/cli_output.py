"""What the ``ordmetrics`` command line prints: aligned text tables, JSON and CSV of the records of
``evaluate`` and ``compare``; and :func:`write_atomically`, which every ``--out`` and
:func:`ordmetrics.report.html.write_report` write their file with.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

# --------------------------------------------------------------------------------------------
# Writing a file
# --------------------------------------------------------------------------------------------


def write_atomically(path: str | os.PathLike[str], write: Callable[[IO[str]], Any]) -> Path:
    """Write a text file so that it is either written whole or left as it was.

    ``write`` writes the content into a temporary file in the same directory, which is
    flushed to disk (``fsync``) and then renamed onto ``path`` with :func:`os.replace` (one
    atomic step on POSIX and Windows). If anything fails on the way (a full disk, a quota, an
    exception in ``write``), the temporary file is removed and a file already at ``path``
    keeps its old content, byte for byte.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists; a symbolic link is followed, so the file
        it points to is replaced).
    write : callable
        ``write(f)`` writes the content to ``f``, a text file opened in UTF-8.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OSError
        When the file cannot be written, with the same ``errno`` and a message that names
        ``path`` and says that the file there is unchanged. An exception raised by
        ``write`` that is not an OSError propagates as it is (the file is unchanged too).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from ordmetrics.report.cli_output import write_atomically
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> write_atomically(target, lambda f: f.write("hello\\n")).read_text()
    'hello\\n'
    """
    out = Path(path)
    target = Path(os.path.realpath(out)) if out.is_symlink() else out
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _write_error(out, exc) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())  # on disk before the rename, so a crash leaves one or the other
        os.chmod(tmp, _mode_of(target))
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _write_error(out, exc) from exc
        raise
    _sync_directory(target.parent)
    return out


def _write_error(path: Path, exc: OSError) -> OSError:
    reason = exc.strerror or str(exc)
    kept = " (the file there is unchanged)" if path.exists() else ""
    return OSError(exc.errno, f"cannot write {str(path)!r}: {reason}{kept}")


def _mode_of(target: Path) -> int:
    """The permission bits of the file replaced, or those of a new file (0o666 less the
    umask): ``mkstemp`` creates its file readable by its owner only."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0o022)  # reading the umask means setting it: set it back at once
        os.umask(umask)
        return 0o666 & ~umask


def _sync_directory(directory: Path) -> None:
    """Flush the directory entry of the renamed file (POSIX); best effort elsewhere."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --------------------------------------------------------------------------------------------
# Text tables
# --------------------------------------------------------------------------------------------


def _fmt_range(lo: float, hi: float) -> str:
    def f(x: float) -> str:
        return "inf" if math.isinf(x) else f"{x:g}"

    return f"[{f(lo)}, {f(hi)}]"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            str(c).rjust(w) if i in right else str(c).ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def _yes(flag: bool) -> str:
    return "yes" if flag else "-"


def _fixed(value: float | None, digits: int = 6) -> str:
    """A number with fixed decimals (``nan``, ``inf``; empty for None)."""
    if value is None:
        return ""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}"


def _text(value: Any) -> str:
    """A group value in a text table (``null`` for a missing value)."""
    if value is None:
        return "null"
    return repr(value) if isinstance(value, float) else str(value)


# --------------------------------------------------------------------------------------------
# Output formats of `evaluate`
# --------------------------------------------------------------------------------------------


def format_table(records: Sequence[dict[str, Any]], by: Sequence[str], intervals: bool) -> str:
    """The metric records as an aligned text table.

    Parameters
    ----------
    records : sequence of dict
        The records of :func:`ordmetrics.report.html.metric_table`.
    by : sequence of str
        The group columns.
    intervals : bool
        Whether to show the ``low`` and ``high`` columns.

    Returns
    -------
    str
        Columns: the group columns, ``metric``, ``estimate``, ``direction`` and, with
        ``intervals``, ``low`` and ``high``; numbers with 6 decimals, a missing group value
        as ``null``.
    """
    header = [*by, "metric", "estimate", "direction"]
    if intervals:
        header += ["low", "high"]
    rows = []
    for r in records:
        row = [_text(r[c]) for c in by]
        row += [r["metric"], _fixed(r["estimate"]), r["direction"]]
        if intervals:
            row += [_fixed(r["low"]), _fixed(r["high"])]
        rows.append(row)
    right = {len(by) + 1, *((len(by) + 3, len(by) + 4) if intervals else ())}
    return _table(header, rows, right)


def _json_number(value: float | None) -> float | str | None:
    """A number for JSON: finite as is, infinite as the string ``"inf"`` / ``"-inf"``, and
    NaN (undefined) or missing as ``null``."""
    if value is None or math.isnan(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _csv_number(value: float | None) -> str:
    """A number for CSV: full precision, ``inf`` / ``-inf``, ``nan`` (undefined), and an
    empty field when missing (no interval)."""
    return "" if value is None else repr(float(value))


def _group_value(value: Any) -> Any:
    """A group value for JSON and CSV: None for a missing value (None, NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def format_json(records: Sequence[dict[str, Any]], by: Sequence[str]) -> str:
    """The metric records as a JSON list of objects (see :func:`format_table`).

    Parameters
    ----------
    records : sequence of dict
        The records of :func:`ordmetrics.report.html.metric_table`.
    by : sequence of str
        The group columns.

    Returns
    -------
    str
        The JSON text, indented. Keys: the group columns, ``metric``, ``estimate``,
        ``direction``, ``low``, ``high``. JSON has no NaN or infinity: an infinite number is
        the string ``"inf"`` or ``"-inf"`` (e.g. the log loss of a zero probability on the true
        class), an undefined number (NaN), a missing interval and a missing group value are
        ``null``; a group value of a type JSON lacks (a date) is its text.
    """
    out = []
    for r in records:
        rec: dict[str, Any] = {c: _group_value(r[c]) for c in by}
        rec["metric"] = r["metric"]
        rec["estimate"] = _json_number(r["estimate"])
        rec["direction"] = r["direction"]
        rec["low"] = _json_number(r["low"])
        rec["high"] = _json_number(r["high"])
        out.append(rec)
    # default=str: group values JSON has no type for (dates, decimals) as their text
    return json.dumps(out, indent=2, allow_nan=False, default=str)


def format_csv(records: Sequence[dict[str, Any]], by: Sequence[str]) -> str:
    """The metric records as CSV, the columns of :func:`format_json`.

    Parameters
    ----------
    records : sequence of dict
        The records of :func:`ordmetrics.report.html.metric_table`.
    by : sequence of str
        The group columns.

    Returns
    -------
    str
        A header line and one line per record, without a final newline. Numbers are written
        in full precision; an infinite number is ``inf`` or ``-inf``, an undefined one (NaN)
        ``nan``, and a missing value (no interval, a missing group value) an empty field.
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*by, "metric", "estimate", "direction", "low", "high"])
    for r in records:
        writer.writerow(
            [
                *("" if _group_value(r[c]) is None else r[c] for c in by),
                r["metric"],
                _csv_number(r["estimate"]),
                r["direction"],
                _csv_number(r["low"]),
                _csv_number(r["high"]),
            ]
        )
    return buf.getvalue().rstrip("\n")


def _compare_json(
    summary: dict[str, Any], metrics: list[dict[str, Any]], pairs: list[dict[str, Any]]
) -> str:
    numbers = ("estimate", "low", "high", "baseline_estimate", "difference", "p_value")

    def clean(rec: dict[str, Any]) -> dict[str, Any]:
        return {k: _json_number(v) if k in numbers else v for k, v in rec.items()}

    out = {
        **summary,
        "metrics": [clean(r) for r in metrics],
        "comparisons": [clean(r) for r in pairs],
    }
    return json.dumps(out, indent=2, allow_nan=False)


#: Columns of ``ordmetrics compare --format csv``.
COMPARE_CSV_COLUMNS: tuple[str, ...] = (
    "kind",
    "metric",
    "direction",
    "model",
    "baseline",
    "estimate",
    "low",
    "high",
    "p_value",
    "better",
)


def _compare_csv(metrics: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COMPARE_CSV_COLUMNS)
    for r in metrics:
        writer.writerow(
            [
                "metric",
                r["metric"],
                r["direction"],
                r["model"],
                "",
                _csv_number(r["estimate"]),
                _csv_number(r["low"]),
                _csv_number(r["high"]),
                "",
                "",
            ]
        )
    for r in pairs:
        writer.writerow(
            [
                "difference",
                r["metric"],
                r["direction"],
                r["model"],
                r["baseline"],
                _csv_number(r["difference"]),
                _csv_number(r["low"]),
                _csv_number(r["high"]),
                _csv_number(r["p_value"]),
                r["better"] or "",
            ]
        )
    return buf.getvalue().rstrip("\n")


def _compare_table(
    summary: dict[str, Any], metrics: list[dict[str, Any]], pairs: list[dict[str, Any]]
) -> str:
    names = [m["model"] for m in summary["models"]]
    ci = f"{summary['confidence_level']:.0%} interval"
    from ordmetrics.evaluation.resample_intervals import significance_level
    from ordmetrics.report.markup import p_text

    alpha = significance_level(summary["confidence_level"])
    order = list(dict.fromkeys(r["metric"] for r in metrics))
    cell = {(r["model"], r["metric"]): r for r in metrics}
    rows = []
    for metric in order:
        first = cell[(names[0], metric)]
        row = [metric, first["direction"]]
        for n in names:
            r = cell[(n, metric)]
            row += [_fixed(r["estimate"]), f"[{_fixed(r['low'])}, {_fixed(r['high'])}]"]
        rows.append(row)
    header = ["metric", "direction"]
    for n in names:
        header += [n, ci]
    left_out = summary["rows_left_out"]
    lines = [
        f"Metrics of {len(names)} models on the same {summary['rows']:,} rows"
        + (f" ({left_out:,} rows with a missing value left out)" if left_out else "")
        + ":",
        "",
        _table(header, rows, right={2 + 2 * i for i in range(len(names))}),
        "",
    ]
    prows = [
        [
            r["metric"],
            r["model"],
            r["baseline"],
            _fixed(r["difference"]),
            f"[{_fixed(r['low'])}, {_fixed(r['high'])}]",
            p_text(r["p_value"], alpha),
            r["better"] or "-",
        ]
        for r in pairs
    ]
    pheader = ["metric", "model", "baseline", "difference", ci, "p_value", "better"]
    lines += [
        "Paired differences (model - baseline, on the same resamples):",
        "",
        _table(pheader, prows, right={3, 5}),
        "",
        f"{ci}: bootstrap percentile interval, {summary['n_resamples']} resamples (seed "
        f"{summary['seed']}; every model on the same resamples). p_value: two-sided bootstrap "
        "p-value of no difference. better: the model whose metric is better (lower for a "
        f"minimize metric, higher for a maximize one) at alpha = {alpha:g}, named exactly when "
        "p_value < alpha, which is when the interval of the difference excludes 0; else -.",
    ]
    return "\n".join(lines)
