"""Output files are written whole or not at all.

Every ``--out`` (``ordmetrics compare``, ``report``, ``demo``) and
:func:`ordmetrics.report.html.write_report` write through
:func:`ordmetrics.report.cli_output.write_atomically`: a temporary file in the same directory,
flushed to disk and renamed onto the target. A failure half-way (a full disk) leaves the
previous file byte for byte, leaves no temporary file behind, and the error names the path.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ordmetrics.report import cli_output
from ordmetrics.report.cli import main
from ordmetrics.report.cli_output import write_atomically

OLD = b'{"old": "a good file that must survive"}\n' * 200
GOLDEN = Path(__file__).resolve().parent / "golden" / "predictions.csv"


def _full_disk_after(n_chars: int):
    """A writer that writes ``n_chars`` characters, then fails as a full disk does."""

    def write(f):
        f.write("x" * n_chars)
        f.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return write


def _old_file(tmp_path: Path, name: str = "out.json") -> Path:
    path = tmp_path / name
    path.write_bytes(OLD)
    return path


def _only(tmp_path: Path, *names: str) -> None:
    """No temporary file is left in the directory."""
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


def test_a_writer_failing_midway_leaves_the_old_file_byte_for_byte(tmp_path):
    path = _old_file(tmp_path)
    with pytest.raises(OSError) as info:
        write_atomically(path, _full_disk_after(100_000))
    assert info.value.errno == errno.ENOSPC
    assert str(path) in str(info.value) and "No space left on device" in str(info.value)
    assert "unchanged" in str(info.value)
    assert path.read_bytes() == OLD
    _only(tmp_path, "out.json")


def test_any_exception_of_the_writer_leaves_the_old_file(tmp_path):
    path = _old_file(tmp_path)

    def write(f):
        f.write("half")
        raise KeyboardInterrupt  # not an OSError: propagates as it is

    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, write)
    assert path.read_bytes() == OLD
    _only(tmp_path, "out.json")


def test_a_failing_flush_to_disk_leaves_the_old_file(tmp_path, monkeypatch):
    path = _old_file(tmp_path)

    def fsync(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cli_output.os, "fsync", fsync)
    with pytest.raises(OSError, match=r"cannot write .*out\.json.*No space left"):
        write_atomically(path, lambda f: f.write("new"))
    assert path.read_bytes() == OLD
    _only(tmp_path, "out.json")


def test_success_replaces_the_file_and_keeps_its_permissions(tmp_path):
    path = _old_file(tmp_path)
    path.chmod(0o640)
    assert write_atomically(path, lambda f: f.write("new\n")) == path
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    new = tmp_path / "new.txt"
    write_atomically(new, lambda f: f.write("é"))
    assert new.read_bytes() == "é".encode()
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask  # as open() would create it
    _only(tmp_path, "out.json", "new.txt")


def test_a_symbolic_link_is_followed(tmp_path):
    real = _old_file(tmp_path, "real.json")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomically(link, lambda f: f.write("new"))
    assert link.is_symlink() and real.read_text() == "new"


def test_a_missing_directory_names_the_path(tmp_path):
    path = tmp_path / "nowhere" / "out.json"
    with pytest.raises(OSError, match=r"cannot write .*nowhere/out\.json"):
        write_atomically(path, lambda f: f.write("new"))


# --------------------------------------------------------------------------------------------
# The commands
# --------------------------------------------------------------------------------------------

BASE = ["--truth", "y", "--metrics", "rps,qwk", "--bootstrap", "50"]


def _no_space(monkeypatch) -> None:
    """Make the flush to disk of every output fail as a full disk does."""

    def fsync(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cli_output.os, "fsync", fsync)


@pytest.fixture
def two_models(tmp_path) -> Path:
    lines = ["y,a0,a1,a2,b0,b1,b2"]
    for i in range(60):
        a = [0.6, 0.3, 0.1] if i % 3 == 0 else [0.2, 0.5, 0.3]
        b = [0.3, 0.4, 0.3]
        lines.append(",".join([str(i % 3), *map(str, a), *map(str, b)]))
    path = tmp_path / "two.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_compare_out_on_a_full_disk_keeps_the_old_file(
    two_models, tmp_path, monkeypatch, capsys, fmt
):
    out = _old_file(tmp_path, f"cmp.{fmt}")
    _no_space(monkeypatch)
    args = ["compare", str(two_models), *BASE, "--model", "a0,a1,a2", "--model", "b0,b1,b2"]
    assert main([*args, "--format", fmt, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"cannot write '{out}': No space left on device" in err
    assert out.read_bytes() == OLD
    _only(tmp_path, "two.csv", out.name)


def test_compare_out_writes_the_whole_output(two_models, tmp_path, capsys):
    out = _old_file(tmp_path, "cmp.json")
    args = ["compare", str(two_models), *BASE, "--model", "a0,a1,a2", "--model", "b0,b1,b2"]
    assert main([*args, "--format", "json", "--out", str(out)]) == 0
    assert main([*args, "--format", "json"]) == 0
    assert out.read_text(encoding="utf-8") == capsys.readouterr().out
    _only(tmp_path, "two.csv", "cmp.json")


def test_report_out_on_a_full_disk_keeps_the_old_report(two_models, tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    from ordmetrics.report import html

    monkeypatch.setattr(html, "build_report", lambda *args, **kwargs: "<html>new</html>\n")
    out = _old_file(tmp_path, "r.html")
    _no_space(monkeypatch)
    args = ["report", str(two_models), *BASE, "--proba", "a0,a1,a2", "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot write '{out}'" in err
    assert out.read_bytes() == OLD
    _only(tmp_path, "two.csv", "r.html")


def test_demo_out_on_a_full_disk_keeps_the_old_report(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pyarrow")
    from ordmetrics.report import html

    # the page itself is tested elsewhere; here only how it is written
    monkeypatch.setattr(html, "build_report", lambda *args, **kwargs: "<html>new</html>\n")
    out = _old_file(tmp_path, "demo.html")
    _no_space(monkeypatch)
    assert main(["demo", "--bootstrap", "0", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write '{out}'" in err and "Traceback" not in err
    assert out.read_bytes() == OLD
    _only(tmp_path, "demo.html")


@pytest.mark.skipif(not hasattr(os, "setpgid") or sys.platform == "darwin", reason="POSIX rlimit")
def test_a_file_size_limit_midway_keeps_the_old_file(two_models, tmp_path, capsys):
    """A real failure of write(2) half-way: the file size limit (RLIMIT_FSIZE) of the process
    makes every write past 4 KiB fail with EFBIG, as a full disk fails with ENOSPC."""
    resource = pytest.importorskip("resource")
    out = tmp_path / "cmp.json"
    args = ["compare", str(two_models), *BASE, "--model", "a0,a1,a2", "--model", "b0,b1,b2"]
    args += ["--metrics", "rps,brier,log_loss,qwk,pbs,pll,sa_rps", "--format", "json"]
    assert main([*args, "--out", str(out)]) == 0
    good = out.read_bytes()
    assert len(good) > 4096

    def limit() -> None:  # pragma: no cover - runs in the child
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    proc = subprocess.run(
        [sys.executable, "-m", "ordmetrics", *args, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit,
    )
    assert proc.returncode == 2, proc.stderr
    assert f"cannot write '{out}': File too large" in proc.stderr
    assert out.read_bytes() == good
    _only(tmp_path, "two.csv", "cmp.json")
