"""The local model's plumbing that needs no model: the server's command line and
environment (issue 13)."""

from __future__ import annotations

from pathlib import Path

from validation.engine.llm.local import ENV, client_env, server_command, server_env
from validation.engine.llm.settings import settings_from_env


def test_the_server_listens_on_loopback_with_the_models_context_and_two_threads() -> None:
    command = server_command(Path("/m.gguf"), 8088, python="python")
    options = dict(zip(command[3::2], command[4::2], strict=False))
    assert command[:3] == ["python", "-m", "llama_cpp.server"]
    assert options["--host"] == "127.0.0.1"
    assert options["--port"] == "8088"
    assert options["--n_ctx"] == "4096"
    assert options["--n_threads"] == "2"


def test_variables_the_server_would_read_as_settings_are_not_passed_to_it() -> None:
    # `make run-llm PORT=8011` exports PORT: the server must not move onto that port.
    env = server_env({"PORT": "8011", "host": "0.0.0.0", "Model": "x", "PATH": "/bin", "HOME": "/"})
    assert env == {"PATH": "/bin", "HOME": "/"}


def test_the_client_settings_fit_the_local_server() -> None:
    settings = settings_from_env(client_env("http://127.0.0.1:8088/v1"))
    assert settings is not None
    assert settings.context_tokens == 4096
    assert settings.response_format == "json_object"
    assert settings.fixer_tool_choice == "named"
    assert settings.max_tokens + settings.evidence_token_budget < settings.context_tokens
    assert set(ENV) <= set(client_env("x"))
