"""How ``make test`` spreads the suite over the cores (pytest-xdist, ``-n auto``).

Only the engine's own test modules run side by side: they share nothing but the CPU. Every
other test touches the database, Redis, a worker process, a server or the browser, and all
of them form one unit of work that a single worker runs in collection order, exactly as a
run in one process would. The local model's tests form another unit, so one llama.cpp
server answers them all. The engine modules fill the other workers meanwhile.

pytest-xdist's own ``--dist loadgroup`` would say this with markers, but it renames node ids
to carry the group, which pytest 9 no longer allows; a scope per node id does the same.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

ENGINE = "tests/engine/"
LOCAL_MODEL = "tests/engine/llm/test_local"


class EngineSideBySide(LoadScopeScheduling):  # type: ignore[misc]  # xdist ships no types
    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(LOCAL_MODEL):
            return "local-model"
        if nodeid.startswith(ENGINE):
            return nodeid.split("::", 1)[0]
        return "serial"
