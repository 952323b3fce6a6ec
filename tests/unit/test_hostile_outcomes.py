"""The hostile run's case runner: a case passes only with the outcome it declares; a server-side
error, any other exception or an unexpected exit code is a failure with its message; a case that
did not run is not counted."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from graphmem.errors import CypherError, DatabaseError, InvalidInput, NotFound, SessionNotFound
from graphmem_devtools.reliability.hostile_cases import LOOKUP, CaseRunner, HostileReport


class _Abandoned(BaseException):
    """Stands for hypothesis abandoning an example while drawing (``StopTest``)."""


def _runner(report: HostileReport, tmp_path: Path) -> CaseRunner:
    return CaseRunner(mem=None, ns="/ns", target="t", report=report, tmp=tmp_path)  # type: ignore[arg-type]


def _raise(e: BaseException) -> Any:
    raise e


def test_declared_rejections_pass_and_server_errors_fail(tmp_path: Path) -> None:
    report = HostileReport()
    r = _runner(report, tmp_path)
    r.api("ok", lambda: 1)
    r.api("invalid", lambda: _raise(InvalidInput("bad value")))
    r.api("lookup", lambda: _raise(SessionNotFound("x")), rejects=LOOKUP)
    assert report.ok and report.cases == 3 and not report.failures
    assert report.outcomes == {"ok": 1, "rejected:InvalidInput": 1, "rejected:SessionNotFound": 1}

    r.api("notfound_undeclared", lambda: _raise(NotFound("nothing")))
    r.api("server", lambda: _raise(DatabaseError("planted Neo.DatabaseError.General.UnknownError")), rejects=LOOKUP)
    r.api("cypher", lambda: _raise(CypherError("planted missing parameter $x")))
    r.api("other", lambda: _raise(KeyError("planted")))
    assert not report.ok and report.as_dict()["result"] == "FAIL"
    assert report.outcomes["failure"] == 4 and report.cases == 7
    joined = "\n".join(report.failures)
    assert "notfound_undeclared: NotFound" in joined
    assert "server: DatabaseError" in joined and "Neo.DatabaseError.General.UnknownError" in joined
    assert "cypher: CypherError" in joined and "missing parameter" in joined
    assert "other: KeyError" in joined


def test_a_failed_check_is_a_failure(tmp_path: Path) -> None:
    report = HostileReport()
    _runner(report, tmp_path).api("store_turn", lambda: 1, lambda _r: "stored text differs")
    assert report.failures == ["store_turn: stored text differs"] and not report.ok


def test_an_abandoned_case_is_not_counted(tmp_path: Path) -> None:
    report = HostileReport()
    with pytest.raises(_Abandoned):
        _runner(report, tmp_path).api("search", lambda: _raise(_Abandoned()))
    assert report.cases == 0 and not report.by_kind and not report.outcomes


def test_cli_exit_codes_are_declared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli_main = importlib.import_module("graphmem.cli.main")  # ``graphmem.cli.main`` is also the function
    codes = iter([0, 2, 3, 1, 3])
    monkeypatch.setattr(cli_main, "main", lambda argv: next(codes))
    report = HostileReport()
    r = _runner(report, tmp_path)
    r.cli("a", ["x"])
    r.cli("b", ["x"])
    r.cli("c", ["x"], exits=frozenset({0, 2, 3}))
    assert report.ok and report.cli_cases == 3
    r.cli("d", ["x"])  # exit 1: a DatabaseError or another unexpected error in the CLI
    r.cli("e", ["x"])  # not found where the case works on existing things
    assert not report.ok and report.cases == 5 and report.outcomes["failure"] == 2
    assert report.failures[0].startswith("d: exit 1 (expected one of [0, 2])")
    assert report.failures[1].startswith("e: exit 3 (expected one of [0, 2])")
