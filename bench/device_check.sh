#!/usr/bin/env bash
# The whole GPU check in one command (docs/gpu.md: "How to run the GPU check").
#
#   bash bench/device_check.sh --prepare          here, where pip and npm reach their registries: fill .device/
#   bash bench/device_check.sh                    on the GPU machine, .device/ carried beside the tree
#   bash bench/device_check.sh --device cpu --venv DIR    the same run rehearsed on a CPU, in a Python 3.12
#                                                         virtual environment holding what the image holds
#
# Options: --device cuda|cpu (default cuda), --out DIR (default $OUT, else .device-out), --quick (a shorter bench),
# --all-tests (every test that can run there, not only the chosen ones), --budget SECONDS (default 450),
# --keep (keep the work folder: models, installs), --python PATH (the Python 3.12 that makes --venv).
# Exit status: 0 when every step passed, 1 when a test or a step failed (the JSON and the log are written first).
set -euo pipefail
cd "$(dirname "$0")/.."

prepare=0 venv="" python312="" device=cuda out="${OUT:-.device-out}" run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --prepare) prepare=1 ;;
    --device) device="$2"; shift ;;
    --out) out="$2"; shift ;;
    --venv) venv="$2"; shift ;;
    --python) python312="$2"; shift ;;
    --budget) run_args+=(--budget "$2"); shift ;;
    --quick | --all-tests | --keep) run_args+=("$1") ;;
    -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 0 ;;
    *) echo "device_check.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$prepare" = 1 ]; then
  echo "== filling .device/ with what the GPU machine lacks (pip download, GPT-2's vocabulary, MiniLM's files)"
  exec python3 bench/device_check.py prepare .device
fi

python=python3  # on the GPU machine: the image's Python, which holds torch
if [ -n "$venv" ]; then
  if [ -z "$python312" ]; then  # python3.12 on PATH if it runs, else pyenv's (as .ci/run finds it)
    python312="$(command -v python3.12 || true)"
    "${python312:-false}" --version >/dev/null 2>&1 || python312=""
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3; do
      [ -n "$python312" ] || [ ! -x "$candidate" ] || python312="$candidate"
    done
  fi
  stamp="$venv/.device_image.sha256"
  wanted="$(sha256sum bench/device_image.txt | cut -d' ' -f1)"
  if [ ! -x "$venv/bin/python" ]; then
    echo "== making $venv: Python 3.12 ($python312) with the GPU image's packages (bench/device_image.txt)"
    "${python312:?no Python 3.12 found: pass --python PATH}" -m venv "$venv"
  fi
  if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    echo "== installing bench/device_image.txt into $venv"
    "$venv/bin/python" -m pip install -qq -r bench/device_image.txt
    echo "$wanted" >"$stamp"
  else
    echo "== reusing $venv (it holds bench/device_image.txt)"
  fi
  python="$venv/bin/python"
fi

echo "== the check: $python bench/device_check.py run --device $device --out $out ${run_args[*]}"
exec "$python" bench/device_check.py run --device "$device" --out "$out" "${run_args[@]}"
