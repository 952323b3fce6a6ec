"""Which commands the warm daemon answers, and how its answer reaches the terminal (no Neo4j: the
daemon here runs a stand-in for the CLI's command functions)."""

from __future__ import annotations

import importlib
import io
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.cli import daemon_route
from graphmem.cli.common import absolute, in_process, working_dir
from graphmem.cli.daemon_route import routed, through_daemon, wants_daemon
from graphmem.config import Settings
from graphmem.runtime.client import CLI_ENV, PROTOCOL, daemon_request, env_key
from graphmem.runtime.daemon import Daemon
from graphmem.runtime.daemon_cli import ThreadCapture, capture_output

from .test_daemon_socket import served


@pytest.mark.parametrize(("argv", "expected"), [
    (["stats"], True),
    (["stats", "--json"], True),
    (["search", "x", "--scope", "session", "--session", "nope"], True),
    (["context", "sid", "hello"], True),
    (["sessions", "list", "--cwd", "/x"], True),
    (["sessions", "show", "sid"], True),
    (["turns", "list", "sid"], True),
    (["facts", "list"], True),
    (["facts", "search", "q"], True),
    (["facts", "audits"], True),
    (["settings", "get"], True),
    (["retrievals", "list"], True),
    (["retrievals", "show", "rid"], True),
    ([], False),
    (["--version"], False),
    (["sessions"], False),  # a group without a verb prints its help
    (["sessions", "delete", "sid"], False),  # writes run here
    (["turns", "add", "--user", "u", "--assistant", "a"], False),
    (["facts", "add", "x"], False),
    (["facts", "forget", "x"], False),
    (["settings", "set", "k", "v"], False),
    (["db", "status"], False),
    (["daemon", "status"], False),
    (["hook", "claude-code"], False),
    (["import", "auto", "p"], False),
    (["search", "--help"], False),  # argparse's help follows this terminal's width
    (["facts", "list", "-h"], False),
    (["--json", "stats"], False),
])
def test_only_read_commands_are_routed(argv: list[str], expected: bool) -> None:
    assert routed(argv) is expected


@pytest.mark.parametrize(("value", "expected"), [
    (None, True), ("1", True), ("yes", True), ("0", False), ("false", False), ("No", False), (" off ", False),
])
def test_graphmem_cli_daemon_turns_the_routing_off(value: str | None, expected: bool) -> None:
    assert wants_daemon({} if value is None else {"GRAPHMEM_CLI_DAEMON": value}) is expected


def test_the_switch_is_not_part_of_the_settings_digest() -> None:
    base = {"GRAPHMEM_HOME": "/h", "LANG": "C"}
    assert env_key(base) == env_key({**base, "GRAPHMEM_CLI_DAEMON": "0"})
    assert env_key(base, names=CLI_ENV) != env_key({**base, "LANG": "fr_FR.UTF-8"}, names=CLI_ENV)
    assert env_key(base) == env_key({**base, "LANG": "fr_FR.UTF-8"})  # the hooks do not care


def test_without_a_daemon_the_command_runs_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_HOME", str(tmp_path / "home"))
    assert through_daemon(["stats"]) is None


def test_paths_are_the_clients(tmp_path: Path) -> None:
    assert working_dir() == str(Path.cwd())
    with in_process(lambda: pytest.fail("no memory"), "/client/dir"):
        assert working_dir() == "/client/dir"
        assert absolute("sub") == "/client/dir/sub"
        assert absolute("/abs") == "/abs"
        seen: list[str] = []
        t = threading.Thread(target=lambda: seen.append(working_dir()))  # another thread: its own directory
        t.start()
        t.join()
        assert seen == [str(Path.cwd())]
    assert working_dir() == str(Path.cwd())


def test_a_capturing_thread_keeps_its_output_and_others_pass_through(monkeypatch: pytest.MonkeyPatch) -> None:
    real_out, real_err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", ThreadCapture(real_out, 1))
    monkeypatch.setattr(sys, "stderr", ThreadCapture(real_err, 2))
    inside, go_on = threading.Event(), threading.Event()

    def other() -> None:  # a hook served meanwhile
        inside.wait(10)
        print("hook line")
        print("hook warning", file=sys.stderr)
        go_on.set()

    t = threading.Thread(target=other)
    t.start()
    with capture_output() as chunks:
        print("first")
        assert not sys.stdout.isatty()
        inside.set()
        assert go_on.wait(10)
        print("warning", file=sys.stderr)
        sys.stdout.write("last\n")
        with pytest.raises(AttributeError):
            sys.stdout.buffer.write(b"bytes would bypass the capture")
    t.join()
    assert chunks == [(1, "first"), (1, "\n"), (2, "warning"), (2, "\n"), (1, "last\n")]
    assert real_out.getvalue() == "hook line\n" and real_err.getvalue() == "hook warning\n"
    print("after")
    assert real_out.getvalue().endswith("after\n")


_RELEASE = threading.Event()
_SLOW_DONE = threading.Event()


def _fake_runner(argv: list[str], *, memory: Any, cwd: str) -> int | None:
    """Stands for :func:`graphmem.cli.main.run_for_client`: prints on both streams, returns a code."""
    if argv[:1] == ["usage"]:
        return None
    if argv[:1] == ["slow"]:
        _RELEASE.wait(60)
        print("too late")
        _SLOW_DONE.set()
        return 0
    if argv[:1] == ["boom"]:
        raise RuntimeError("a bug")
    print(f"out {' '.join(argv)} in {cwd}")
    print("err line", file=sys.stderr)
    print("out again")
    return 3


@pytest.fixture
def serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Daemon, Path]]:
    """A daemon's socket server with the stand-in runner (no Neo4j behind it)."""
    home = tmp_path / "h"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("GRAPHMEM_HOME", str(home))
    monkeypatch.delenv("GRAPHMEM_CLI_DAEMON", raising=False)
    daemon = Daemon(home, Settings(home=home, embedder="none"), worker=False, idle_timeout=0,
                    cli_runner=_fake_runner)
    daemon._embedder_settled.set()  # what the warm-up does when no embedder is configured
    real_out, real_err = sys.stdout, sys.stderr
    try:
        with served(daemon):
            yield daemon, home
    finally:
        sys.stdout, sys.stderr = real_out, real_err  # the daemon installed its capturing streams


def test_the_daemon_answers_a_read_command(serving: tuple[Daemon, Path], capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    daemon, _ = serving
    monkeypatch.setattr(daemon_route, "ROUTED", {"stats": None, "usage": None, "boom": None, "slow": None})
    assert through_daemon(["stats", "--json"]) == 3
    out, err = capsys.readouterr()
    assert out == f"out stats --json in {Path.cwd()}\nout again\n" and err == "err line\n"
    assert daemon.cli is not None and daemon.cli.counts() == {"served": 1, "fallbacks": 0}
    assert through_daemon(["usage"]) is None  # argparse exits: the client runs it itself
    assert through_daemon(["boom"]) is None  # an unexpected error too
    assert capsys.readouterr() == ("", "")
    assert daemon.cli.counts() == {"served": 1, "fallbacks": 2}
    monkeypatch.setenv("GRAPHMEM_CLI_DAEMON_TIMEOUT", "0.3")  # not part of the settings digest
    try:
        assert through_daemon(["slow"]) is None  # no answer in time: the client runs it itself
    finally:
        _RELEASE.set()
    assert _SLOW_DONE.wait(60)  # its late line went into its own capture, not to this terminal
    assert capsys.readouterr() == ("", "")


def test_other_settings_run_here_and_leave_the_daemon_up(serving: tuple[Daemon, Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    daemon, home = serving
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", "bolt://elsewhere:7687")
    assert through_daemon(["stats"]) is None
    monkeypatch.delenv("GRAPHMEM_NEO4J_URI")
    monkeypatch.setenv("LC_ALL", "fr_FR.UTF-8" if daemon_route.os.environ.get("LC_ALL") != "fr_FR.UTF-8" else "C")
    assert through_daemon(["stats"]) is None  # another locale prints other relative times
    assert not daemon._stop.is_set()  # unlike a hook with other settings, a command does not restart it
    reply = daemon_request({"v": PROTOCOL, "op": "ping"}, home=str(home), timeout=10)
    assert reply["cli"] == {"served": 0, "fallbacks": 2}


def test_the_switch_keeps_the_command_here(serving: tuple[Daemon, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    daemon, _ = serving
    monkeypatch.setenv("GRAPHMEM_CLI_DAEMON", "0")
    assert through_daemon(["stats"]) is None
    assert daemon.cli is not None and daemon.cli.counts() == {"served": 0, "fallbacks": 0}


def test_a_daemon_without_a_runner_sends_the_command_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "h"
    home.mkdir(mode=0o700)
    daemon = Daemon(home, Settings(home=home, embedder="none"), worker=False, idle_timeout=0)
    reply = daemon.dispatch({"v": PROTOCOL, "op": "cli", "env": "other", "argv": ["stats"], "cwd": "/"})
    assert reply["ok"] is False and reply["fallback"]
    assert not daemon._stop.is_set()


def test_the_entry_asks_the_daemon_first_and_runs_here_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    cli_main = importlib.import_module("graphmem.cli.main")
    ran: list[list[str]] = []

    def direct(raw: list[str]) -> int:
        ran.append(raw)
        return 0

    monkeypatch.setattr(cli_main, "run", direct)
    monkeypatch.setattr(daemon_route, "through_daemon", lambda argv: 7)
    assert cli_main.main(["stats"]) == 7 and ran == []
    monkeypatch.setattr(daemon_route, "through_daemon", lambda argv: None)
    assert cli_main.main(["stats"]) == 0 and ran == [["stats"]]


class _Terminal(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(("embedder", "tty", "said"), [
    ("local", True, True), ("local", False, False), ("none", True, False),
])
def test_the_direct_path_says_when_it_loads_the_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                      embedder: str, tty: bool, said: bool) -> None:
    from graphmem import embedding
    from graphmem.cli import common

    made: list[str] = []
    monkeypatch.setattr(embedding, "make_embedder", lambda settings: made.append(settings.embedder))
    err = _Terminal(tty)
    monkeypatch.setattr(sys, "stderr", err)
    assert common._embedder_announced(Settings(home=tmp_path, embedder=embedder)) is None and made == [embedder]
    assert err.getvalue() == (common.LOADING_LINE + "\n" if said else "")


def test_the_test_harness_and_the_up_switch_are_not_settings() -> None:
    """``make`` exports GRAPHMEM_TEST_STRICT, also to the daemon ``make demo`` leaves running: the
    person's shell, without it, must still be answered by that daemon."""
    from graphmem.runtime.client import env_key

    base = {"GRAPHMEM_HOME": "/h", "HOME": "/home/x"}
    assert env_key({**base, "GRAPHMEM_TEST_STRICT": "1", "GRAPHMEM_UP_DAEMON": "0"}) == env_key(base)
    assert env_key({**base, "GRAPHMEM_EMBEDDER": "none"}) != env_key(base)
