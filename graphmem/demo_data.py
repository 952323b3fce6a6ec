"""A realistic coding-assistant session used by ``graphmem demo`` and the tests."""

from __future__ import annotations

from typing import Any

__all__ = ["DEMO_TURNS"]

DEMO_TURNS: list[dict[str, Any]] = [
    {
        "user": "The test suite fails on CI with `KeyError: 'timezone'` in settings loading. Can you find out why?",
        "tools": [
            {"name": "Grep", "args": {"pattern": "timezone", "path": "src/"}, "success": True, "duration_ms": 41,
             "result": "src/app/settings.py:88:    tz = raw['timezone']\nsrc/app/clock.py:12:def now(tz): ..."},
            {"name": "Read", "args": {"file_path": "src/app/settings.py", "offset": 70, "limit": 40},
             "success": True, "duration_ms": 12,
             "result": "def load_settings(path):\n    raw = tomllib.load(open(path, 'rb'))\n    tz = raw['timezone']"},
            {"name": "Bash", "args": {"command": "git log -3 --oneline -- config/defaults.toml"}, "success": True,
             "duration_ms": 55, "result": "a1b2c3d drop unused keys from defaults.toml"},
        ],
        "assistant": "The CI failure comes from commit a1b2c3d, which removed `timezone` from "
        "config/defaults.toml, while src/app/settings.py line 88 still reads `raw['timezone']` without a "
        "default. Locally your ~/.config overrides it, so it only fails on CI.",
    },
    {
        "user": "Make it default to UTC instead of crashing, and add a test.",
        "tools": [
            {"name": "Edit", "args": {"file_path": "src/app/settings.py", "old_string": "tz = raw['timezone']",
                                      "new_string": "tz = raw.get('timezone', 'UTC')"},
             "success": True, "duration_ms": 8, "result": "The file src/app/settings.py has been updated."},
            {"name": "Write", "args": {"file_path": "tests/test_settings.py"}, "success": True, "duration_ms": 6,
             "result": "File created successfully at: tests/test_settings.py"},
            {"name": "Bash", "args": {"command": "pytest tests/test_settings.py -q"}, "success": False,
             "duration_ms": 1840,
             "result": "E   ModuleNotFoundError: No module named 'app'\n1 error in 0.31s"},
            {"name": "Bash", "args": {"command": "PYTHONPATH=src pytest tests/test_settings.py -q"},
             "success": True, "duration_ms": 1620, "result": "2 passed in 0.28s"},
        ],
        "assistant": "Done: `load_settings` now falls back to 'UTC', and tests/test_settings.py covers both the "
        "missing key and an explicit value. The first pytest run failed only because `src/` was not on the "
        "path; with PYTHONPATH=src both tests pass.",
    },
    {
        "user": "Why do we need PYTHONPATH? Fix the packaging so plain `pytest` works.",
        "tools": [
            {"name": "Read", "args": {"file_path": "pyproject.toml"}, "success": True, "duration_ms": 9,
             "result": "[tool.pytest.ini_options]\naddopts = \"-q\""},
            {"name": "Edit", "args": {"file_path": "pyproject.toml", "old_string": "addopts = \"-q\"",
                                      "new_string": "addopts = \"-q\"\npythonpath = [\"src\"]"},
             "success": True, "duration_ms": 7, "result": "The file pyproject.toml has been updated."},
            {"name": "Bash", "args": {"command": "pytest -q"}, "success": True, "duration_ms": 5230,
             "result": "148 passed, 2 skipped in 4.91s"},
        ],
        "assistant": "The project uses a src/ layout but pytest was not told about it. I added "
        "`pythonpath = [\"src\"]` to [tool.pytest.ini_options] in pyproject.toml; now `pytest -q` passes "
        "(148 passed, 2 skipped) without any environment variable.",
    },
    {
        "user": "Les horodatages dans les logs sont toujours en heure locale, c'est normal ?",
        "tools": [
            {"name": "Grep", "args": {"pattern": "datetime.now\\(", "path": "src/"}, "success": True,
             "duration_ms": 38, "result": "src/app/logging_setup.py:21:    stamp = datetime.now().isoformat()"},
        ],
        "assistant": "Non : src/app/logging_setup.py ligne 21 utilise `datetime.now()` sans fuseau, donc "
        "l'heure locale de la machine. Il faudrait `datetime.now(tz=settings.tz)` pour suivre le réglage "
        "`timezone` qu'on vient de rendre optionnel (UTC par défaut).",
    },
    {
        "user": "Ok, fais-le et relance toute la suite.",
        "tools": [
            {"name": "Edit", "args": {"file_path": "src/app/logging_setup.py",
                                      "old_string": "datetime.now()", "new_string": "datetime.now(tz=settings.tz)"},
             "success": True, "duration_ms": 7, "result": "The file src/app/logging_setup.py has been updated."},
            {"name": "Bash", "args": {"command": "pytest -q"}, "success": True, "duration_ms": 5410,
             "result": "149 passed, 2 skipped in 5.02s"},
        ],
        "assistant": "C'est fait : les journaux utilisent maintenant le fuseau configuré (UTC par défaut). "
        "Toute la suite passe : 149 tests réussis, 2 ignorés.",
    },
]
