#!/usr/bin/env bash
# Build the distributions and check that they work outside the repository.
#
# Usage, from the repository root (`make package-check` runs it):
#
#     scripts/check_package.sh [PYTHON]
#
# PYTHON (default .venv/bin/python) must have `build` and `twine` (pip install -e ".[release]").
#
# 1. `python -m build`: an sdist, and a wheel built from that sdist, in a fresh dist directory.
# 2. `twine check`: the metadata and the README render on the package index.
# 3. The wheel (a platform wheel: the scoring kernels compiled ahead of time, used without
#    importing numba), with its dependencies only (the base install: no pandas, polars, pyarrow,
#    matplotlib), in a new virtual environment outside the repository: `ordmetrics --version`,
#    `ordmetrics demo` (the metric table from the bundled data; one line on how to get the
#    report), `ordmetrics evaluate` of a CSV file (read without a data-frame library).
# 4. The sdist installed in place of the wheel (`--no-deps`: the dependencies are there):
#    `ordmetrics --version` and the bundled data loads.
#
# pip's cache is used, so a second run downloads nothing. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${1:-.venv/bin/python}
work=$(mktemp -d "${TMPDIR:-/tmp}/ordmetrics-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
step() { echo "package-check [$(($(date +%s) - start)) s]: $*"; }

step "building the sdist and the wheel"
"$PYTHON" -m build --outdir "$work/dist" . >"$work/build.log" 2>&1 || {
    cat "$work/build.log"
    exit 1
}
sdist=$(ls "$work"/dist/ordmetrics-*.tar.gz)
wheel=$(ls "$work"/dist/ordmetrics-*.whl)
version=$("$PYTHON" -c "import sys; sys.path.insert(0, 'src'); from ordmetrics._version import __version__; print(__version__)")
# a platform wheel: it carries the scoring kernels compiled ahead of time (setup.py)
case "$(basename "$wheel")" in
ordmetrics-"$version"-cp*.whl) ;;
*)
    echo "package-check: the wheel $(basename "$wheel") does not carry the version $version" >&2
    exit 1
    ;;
esac
"$PYTHON" -c "import sys, zipfile; print('\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))" \
    "$wheel" >"$work/wheel.txt"
# with a C compiler the build must carry the ahead-of-time scoring kernels (without one it goes on
# without them, and their checks below are skipped)
has_cc=$("$PYTHON" -c 'import os, shutil, sysconfig; print(int(bool(shutil.which((os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]))))')
if [ "$has_cc" = 1 ]; then
    grep -q "^ordmetrics/_core/_scoring_aot_f8\." "$work/wheel.txt" &&
        grep -q "^ordmetrics/_core/_scoring_aot_f4\." "$work/wheel.txt" || {
        echo "package-check: the ahead-of-time scoring kernels are missing from the wheel" >&2
        exit 1
    }
fi
for member in ordmetrics/_data/diamonds_cut_oof.csv.gz ordmetrics/py.typed ordmetrics/io/delimited.py; do
    grep -qx "$member" "$work/wheel.txt" || {
        echo "package-check: $member is missing from the wheel" >&2
        exit 1
    }
done
tar -tzf "$sdist" >"$work/sdist.txt"
grep -q "src/ordmetrics/_data/diamonds_cut_oof.csv.gz$" "$work/sdist.txt" || {
    echo "package-check: the bundled data is missing from the sdist" >&2
    exit 1
}

step "twine check"
"$PYTHON" -m twine check --strict "$work"/dist/*

step "installing the wheel (base install) into a new virtual environment"
"$PYTHON" -m venv "$work/venv"
vpy="$work/venv/bin/python"
"$vpy" -m pip install --quiet "$wheel"
for lib in pandas polars pyarrow matplotlib; do
    if "$vpy" -c "import $lib" 2>/dev/null; then
        echo "package-check: $lib is installed by the base install" >&2
        exit 1
    fi
done

run_demo() {
    (cd "$work" && "$work/venv/bin/ordmetrics" demo --bootstrap 20 --out "$work/demo.html") \
        >"$work/demo.txt"
    grep -q "^c_index " "$work/demo.txt"
    grep -q "^The HTML report needs matplotlib: install it with" "$work/demo.txt"
}

step "ordmetrics --version, demo and evaluate (wheel)"
test "$(cd "$work" && "$work/venv/bin/ordmetrics" --version)" = "ordmetrics $version"
# the scoring kernels come compiled: a first call neither compiles nor imports numba
aot=$(cd "$work" && "$vpy" -c "import sys, numpy as np, ordmetrics as om
from ordmetrics._core.aot import aot_status
om.rps([0, 1, 2], np.eye(3)); print(aot_status(), 'numba' in sys.modules)")
case "$has_cc $aot" in
"1 in use "*False | 0*) ;;
*)
    echo "package-check: the ahead-of-time scoring kernels are not used: $aot" >&2
    exit 1
    ;;
esac
run_demo
cat "$work/demo.txt"
printf 'grade,site,p0,p1,p2\n0,a,0.7,0.2,0.1\n1,a,0.2,0.6,0.2\n2,b,0.1,0.3,0.6\n1,b,0.3,0.5,0.2\n' \
    >"$work/preds.csv"
(cd "$work" && "$work/venv/bin/ordmetrics" evaluate preds.csv --truth grade --proba-prefix p \
    --by site --metrics rps,qwk --format csv) >"$work/eval.txt"
cat "$work/eval.txt"
# (0.05 + 0.04) / 2: the two rows of site a, by hand
grep -q "^a,rps,0.04500000000000" "$work/eval.txt"

step "installing the sdist in place of the wheel"
"$vpy" -m pip uninstall --quiet --yes ordmetrics
# (the wheel above was built from this sdist, its compiled kernels included: not again here)
ORDMETRICS_AOT=0 "$vpy" -m pip install --quiet --no-deps "$sdist"
test "$(cd "$work" && "$work/venv/bin/ordmetrics" --version)" = "ordmetrics $version"
(cd "$work" && "$vpy" -c "from ordmetrics.datasets import load_diamonds_cut as f; \
assert f('logit').y_proba.shape == (53940, 5)")

step "done: sdist and wheel build, pass twine check and run from a base install"
