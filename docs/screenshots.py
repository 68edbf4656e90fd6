"""Screenshots of the built site in headless Chromium, and a check that they show something.

Usage: ``python docs/screenshots.py [HTML_DIR] [OUT_DIR]`` after ``make docs``; defaults
``docs/_build/html`` and ``docs/_build/screenshots``. Writes ``home.png`` (the home page) and
``gallery.png`` (the confusion-matrix example of the gallery) at 1400 x 1000 pixels, and exits
with status 1 when a screenshot is missing, smaller than 20 kB, or of (nearly) one colour.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PAGES = {"home": "index.html", "gallery": "auto_examples/plot_confusion_matrices.html"}
MIN_BYTES = 20_000
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("no Chromium found: install it with `apt-get install -y chromium`")


def shoot(html: Path, png: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        cmd = [chromium(), *FLAGS, f"--user-data-dir={profile}", f"--screenshot={png}"]
        subprocess.run(
            [*cmd, html.resolve().as_uri()],
            check=True,
            timeout=120,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def problems(png: Path) -> list[str]:
    """What is wrong with a screenshot: missing, too small, or (nearly) a single colour."""
    if not png.is_file():
        return [f"{png} was not written"]
    size = png.stat().st_size
    if size < MIN_BYTES:
        return [f"{png} has {size} bytes, fewer than {MIN_BYTES}: the page looks empty"]
    import matplotlib.image
    import numpy as np

    rgb = (matplotlib.image.imread(png)[..., :3].reshape(-1, 3) * 255).round().astype(np.int64)
    packed = (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    colours, background = values, counts.max() / packed.size
    out = []
    if len(colours) < 50:
        out.append(f"{png} has only {len(colours)} colours")
    if background > 0.995:
        out.append(f"{png} is {background:.1%} one colour")
    return out


def main(argv: list[str]) -> int:
    html = Path(argv[1] if len(argv) > 1 else "docs/_build/html")
    out = Path(argv[2] if len(argv) > 2 else "docs/_build/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    found = []
    for name, page in PAGES.items():
        png = out / f"{name}.png"
        if png.exists():
            png.unlink()
        shoot(html / page, png)
        found += problems(png)
        if png.is_file():
            print(f"{png}: {png.stat().st_size} bytes")
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.exit(main(sys.argv))
