# Sourced by the model provisioning scripts: a Python virtualenv with the pinned onnx package, kept in the cache
# (CACHE must be set). onnx, protobuf and numpy are pinned, since they serialize the graphs whose checksums we pin.
ONNX_VENV="${LITSEARCH_ONNX_VENV:-$CACHE/venv-onnx-export}"  # tests point it at the provisioned one
ONNX_PIP_PINS=(onnx==1.19.1 protobuf==7.36.2 numpy==2.4.6)

# ensure_onnx_venv <log prefix>: creates the virtualenv unless it already imports onnx and numpy; prints its python
ensure_onnx_venv() {
  if [[ ! -x "$ONNX_VENV/bin/python" ]] || ! "$ONNX_VENV/bin/python" -c 'import onnx, numpy' 2>/dev/null; then
    printf '[%s] creating the onnx virtualenv at %s (%s)\n' "$1" "$ONNX_VENV" "${ONNX_PIP_PINS[*]}" >&2
    rm -rf "$ONNX_VENV"
    python3 -m venv "$ONNX_VENV" >&2 || { printf '[%s] ERROR: python3 -m venv failed (on Debian: apt-get install python3-venv)\n' "$1" >&2; return 1; }
    "$ONNX_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: "${ONNX_PIP_PINS[@]}" >&2
  fi
  printf '%s\n' "$ONNX_VENV/bin/python"
}
