"""The hook command the coding CLIs run: ``graphmem hook <claude-code|codex|gemini>``.

Its hot path imports nothing but built-in modules (``_socket``, ``binascii``; ``os``, ``sys``
and ``time`` are loaded by the interpreter anyway), so the process costs little more than the
interpreter's own start-up. It reads the hook's JSON from stdin, sends it to the local daemon
(``graphmem daemon``, a Unix socket under ``$GRAPHMEM_HOME``) and prints the answer within the
time budget. ``graphmem hooks install`` writes ``<python> -S <this file> <tool>`` as the hook
command: ``-S`` skips the ``site`` initialisation (site-packages, ``.pth`` files), which this
path does not need.

* ``UserPromptSubmit`` / ``BeforeAgent`` / ``SessionStart``: the budget is
  ``GRAPHMEM_HOOK_BUDGET`` seconds (default 1.5) from process start. Past it, or on any failure,
  nothing is printed and the exit code is 0: the person's prompt is never blocked.
* ``Stop`` / ``AfterAgent`` / ``SessionEnd`` / ``PreCompact`` / ``PreCompress``: the new
  transcript records are ingested (budget
  ``GRAPHMEM_HOOK_STOP_BUDGET``, default 20 s; the daemon finishes the work even if the client
  gives up waiting).

When no daemon answers, the hook starts one, detached, for next time; for this call a prompt gets
no context, and a Stop is ingested in this process (or spooled when Neo4j is unreachable).

Wire format of a hook request (one connection each): a header line
``GMHOOK <protocol> <tool> <env-key> <deadline-ms>\\n`` then the raw hook input; the reply is
``<stdout-bytes> <stderr-bytes>\\n`` then both texts (UTF-8). Control requests (ping, stop,
replay) are one JSON line each way (:func:`daemon_request`).

Only this user talks to this user's daemon: the socket is 0600 in a 0700 folder of this user
(the daemon refuses a folder another user owns or may write to), and each side
checks the uid of the other end of every connection (``SO_PEERCRED`` on Linux, :func:`peer_uid`).
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # not imported at run time: `typing` costs start-up time
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "CLI_ENV",
    "DEFAULT_BUDGET",
    "DEFAULT_STOP_BUDGET",
    "PROTOCOL",
    "ForeignPeer",
    "NoDaemon",
    "daemon_request",
    "env_key",
    "event_kind",
    "home_dir",
    "hook_main",
    "hook_request",
    "peer_uid",
    "socket_path",
    "spawn_daemon",
]



def _process_start() -> float:
    """``time.monotonic()`` at this process's start (Linux ``/proc``), else now."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        ticks = int(stat[stat.rfind(b")") + 2 :].split()[19])
        age = uptime - ticks / os.sysconf("SC_CLK_TCK")
        return now - age if 0 <= age < 60 else now
    except (OSError, ValueError, IndexError):
        return now


_T0 = _process_start()
"""When this process started: the hook's budget counts from here."""

PROTOCOL = 1
DEFAULT_BUDGET = 1.5
DEFAULT_STOP_BUDGET = 20.0
TOOLS = ("claude-code", "codex", "gemini")
_TOOL_ALIASES = {"claude": "claude-code", "claude_code": "claude-code", "gemini-cli": "gemini", "codex-cli": "codex"}
_PROMPT_EVENTS = ("userpromptsubmit", "beforeagent", "prompt")
_STOP_EVENTS = ("stop", "afteragent", "sessionend", "session_end", "subagentstop", "precompact", "precompress")
_START_EVENTS = ("sessionstart", "session_start")
_PRE_TOOL_EVENTS = ("pretooluse",)
_ENV_PREFIXES = ("GRAPHMEM_", "NEO4J_")
_ENV_IGNORED = ("GRAPHMEM_HOOK_BUDGET", "GRAPHMEM_HOOK_STOP_BUDGET", "GRAPHMEM_HOOK_DAEMON", "GRAPHMEM_HOOK_TIMING",
                "GRAPHMEM_CLI_DAEMON", "GRAPHMEM_CLI_DAEMON_TIMEOUT", "GRAPHMEM_UP_DAEMON")
_TEST_PREFIX = "GRAPHMEM_TEST_"  # the test harness's (make exports GRAPHMEM_TEST_STRICT): never settings
CLI_ENV = ("HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "TZ", "OPENAI_API_KEY", "OPENAI_BASE_URL")
"""Variables besides GRAPHMEM_* and NEO4J_* that change what a CLI command prints: the daemon
answers a command only for a client whose values are its own."""
_SPAWN_GRACE = 30.0
"""Seconds during which a daemon being started is not started again."""
_MAX_REPLY = 64 * 1024 * 1024

_USAGE = """usage: graphmem hook <claude-code|codex|gemini> [--budget SECONDS] [--no-daemon]

Run by the coding CLIs' hooks (see `graphmem hooks install`): reads the hook's JSON on stdin,
prints the context to inject (UserPromptSubmit/BeforeAgent/SessionStart) or ingests the new
transcript records (Stop/AfterAgent/SessionEnd/PreCompact/PreCompress). Always exits 0; prints nothing on failure.
"""


# --------------------------------------------------------------------------------------------
# paths and settings (shared with the daemon)


def home_dir(environ: dict[str, str] | None = None) -> str:
    """``$GRAPHMEM_HOME`` (default ``~/.local/share/graphmem``), absolute."""
    env = os.environ if environ is None else environ
    raw = env.get("GRAPHMEM_HOME") or "~/.local/share/graphmem"
    return os.path.abspath(os.path.expanduser(raw))


def socket_path(home: str) -> str:
    """The daemon's Unix socket: ``$GRAPHMEM_HOME/daemon.sock``, or a short path under the
    temporary directory (in a 0700 folder of this user) when that one is too long for AF_UNIX."""
    p = os.path.join(home, "daemon.sock")
    if len(os.fsencode(p)) <= 100:
        return p
    import binascii

    digest = f"{binascii.crc32(os.fsencode(home)):08x}"
    base = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"graphmem-{os.getuid()}")
    return os.path.join(base, f"{digest}-{len(home)}.sock")


class ForeignPeer(PermissionError):
    """The other end of the daemon's socket is a process of another user."""


def peer_uid(sock: Any) -> int | None:
    """The uid of the process at the other end of a connected Unix socket (``SO_PEERCRED``, Linux);
    None where the system does not tell (there the 0600 socket in a 0700 folder is the guard)."""
    import _socket

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    cred = sock.getsockopt(_socket.SOL_SOCKET, option, 12)  # struct ucred: pid, uid, gid (32 bits each)
    return int.from_bytes(cred[4:8], sys.byteorder)


def check_peer(sock: Any, *, uid: int | None = None) -> None:
    """Raise :class:`ForeignPeer` when the other end of ``sock`` runs as another user than ``uid``."""
    other = peer_uid(sock)
    mine = os.getuid() if uid is None else uid
    if other is not None and other != mine:
        raise ForeignPeer(f"the other end of the daemon socket runs as uid {other}, not as this user (uid {mine})")


def env_key(environ: dict[str, str] | None = None, *, names: tuple[str, ...] = ()) -> str:
    """A digest of the settings a daemon was started with (GRAPHMEM_* and NEO4J_* variables, and
    the variables ``names``); a hook whose environment differs makes the daemon restart with the
    new one."""
    import binascii

    env = os.environ if environ is None else environ
    items = sorted((k, v) for k, v in env.items()
                   if (k.startswith(_ENV_PREFIXES) and k not in _ENV_IGNORED and not k.startswith(_TEST_PREFIX))
                   or k in names)
    data = "\x01".join(f"{k}\x00{v}" for k, v in items).encode("utf-8", errors="surrogatepass")
    return f"{binascii.crc32(data):08x}{binascii.crc32(data[::-1]):08x}"


def event_kind(raw: bytes) -> str:
    """``prompt``, ``stop``, ``session_start``, ``pre_tool`` or ``other``, from the payload's
    ``hook_event_name`` (found without a JSON parser: event names are plain ASCII words)."""
    key = b'"hook_event_name"'
    i = raw.find(key)
    if i < 0:
        return "other"
    j = i + len(key)
    n = len(raw)
    while j < n and raw[j] in b" \t\r\n:":
        j += 1
    if j >= n or raw[j] != 0x22:  # '"'
        return "other"
    end = raw.find(b'"', j + 1)
    if end < 0:
        return "other"
    name = raw[j + 1 : end].decode("ascii", errors="replace").replace("-", "").replace(" ", "").lower()
    if name in _PROMPT_EVENTS:
        return "prompt"
    if name in _STOP_EVENTS:
        return "stop"
    if name in _START_EVENTS:
        return "session_start"
    if name in _PRE_TOOL_EVENTS:
        return "pre_tool"  # a prompt's budget: the tool waits for the answer
    return "other"


# --------------------------------------------------------------------------------------------
# talking to the daemon


class NoDaemon(Exception):
    """No daemon answers on the socket (or it asked to be restarted)."""


def _exchange(home: str, payload: bytes, timeout: float) -> bytes:
    """Send ``payload`` on a fresh connection, half-close, read the whole reply."""
    import _socket

    deadline = time.monotonic() + max(0.001, timeout)
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.settimeout(max(0.001, timeout))
        try:
            s.connect(socket_path(home))
        except (FileNotFoundError, ConnectionRefusedError) as e:
            raise NoDaemon(str(e)) from e
        check_peer(s)  # never send a prompt or a transcript to another user's process
        s.sendall(payload)
        s.shutdown(_socket.SHUT_WR)
        chunks: list[bytes] = []
        size = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the daemon did not answer in time")
            s.settimeout(left)
            chunk = s.recv(262144)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > _MAX_REPLY:
                raise ValueError("reply too large")
    finally:
        s.close()
    if not chunks:
        raise NoDaemon("the daemon closed the connection without answering")
    return b"".join(chunks)


def hook_request(home: str, tool: str, raw: bytes, *, timeout: float, env: str | None = None) -> tuple[str, str]:
    """One hook through the daemon: (stdout, stderr). Raises ``NoDaemon`` when nothing listens
    (or the daemon runs with other settings and restarts), ``TimeoutError``/``OSError``/
    ``ValueError`` otherwise."""
    header = f"GMHOOK {PROTOCOL} {tool} {env or env_key()} {int(max(0.0, timeout) * 1000)}\n"
    reply = _exchange(home, header.encode("ascii") + raw, timeout)
    nl = reply.find(b"\n")
    if nl < 0:
        raise ValueError("malformed reply")
    head = reply[:nl].split()
    if head[:1] == [b"RESTART"]:
        raise NoDaemon("the daemon runs with other settings; it is restarting")
    n_out, n_err = int(head[0]), int(head[1])
    body = reply[nl + 1 :]
    if len(body) != n_out + n_err:
        raise ValueError("truncated reply")
    return body[:n_out].decode("utf-8", errors="replace"), body[n_out:].decode("utf-8", errors="replace")


def daemon_request(request: dict[str, Any], *, home: str, timeout: float) -> dict[str, Any]:
    """A control request (``ping``, ``stop``, ``replay``): one JSON line each way."""
    import json

    reply = json.loads(_exchange(home, json.dumps(request).encode("utf-8") + b"\n", timeout).decode("utf-8"))
    if not isinstance(reply, dict):
        raise ValueError("reply is not a JSON object")
    if reply.get("restart"):
        raise NoDaemon("the daemon runs with other settings; it is restarting")
    return reply


def spawn_daemon(home: str, *, force: bool = False) -> bool:
    """Start ``graphmem daemon run`` detached (its log, from its start to its stop, goes to
    ``$GRAPHMEM_HOME/daemon.log``).

    Not started again while a start is under way (a marker younger than 30 s), unless ``force``.
    Returns whether a process was started. Never raises."""
    try:
        os.makedirs(home, mode=0o700, exist_ok=True)
        marker = os.path.join(home, "daemon.starting")
        if not force:
            try:
                if time.time() - os.stat(marker).st_mtime < _SPAWN_GRACE:
                    return False
            except OSError:
                pass
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
        except OSError:
            pass
        import subprocess

        try:
            log: Any = os.open(os.path.join(home, "daemon.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError:
            log = subprocess.DEVNULL
        # -S on the hook command line must not reach the daemon: it needs site-packages
        code = "import sys; from graphmem.cli import main; sys.exit(main())"
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ)
        if sys.flags.no_site:  # make sure this copy of graphmem is the one the daemon imports
            env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            subprocess.Popen(
                [sys.executable, "-c", code, "daemon", "run"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
                close_fds=True,
                cwd=home if os.path.isdir(home) else "/",
                env=env,
            )
        finally:
            if isinstance(log, int) and log >= 0:
                os.close(log)
        return True
    except Exception:  # starting the daemon is best effort; the hook must not fail
        return False


# --------------------------------------------------------------------------------------------
# the hook command


def _float_env(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


def _emit(stdout: str, stderr: str) -> None:
    try:
        if stdout:
            sys.stdout.write(stdout if stdout.endswith("\n") else stdout + "\n")
            sys.stdout.flush()
        if stderr:
            sys.stderr.write(stderr if stderr.endswith("\n") else stderr + "\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _service() -> Any:
    """:mod:`graphmem.runtime.service`, also when this file runs as a script under ``python -S``."""
    return _module("graphmem.runtime.service")


def _module(name: str) -> Any:
    """Import a graphmem module, also when this file runs as a script under ``python -S``."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        import site

        site.main()  # python -S: add site-packages now (only the slow paths need them)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        if root not in sys.path:
            sys.path.insert(0, root)
        return importlib.import_module(name)


def _until(deadline: float, work: Callable[[], None]) -> None:
    """Run ``work`` in a daemon thread and wait for it until ``deadline`` at most (it may go on)."""
    import threading

    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(max(0.0, deadline - time.monotonic()))


def _settings_problem(deadline: float) -> str:
    """Why a daemon started now would exit at once: a bad ``GRAPHMEM_*`` value, as the one line the
    CLI prints; ``''`` when the settings load (or when telling would pass ``deadline``). Only the
    path that spawns a daemon asks (loading the settings costs about 0.2 s)."""
    result: list[str] = []

    def check() -> None:
        try:
            settings = _module("graphmem.config").Settings
            invalid = _module("graphmem.errors").InvalidSettings
            try:
                settings.load()
            except invalid as e:
                result.append(f"graphmem: {e}"[:1000])
        except BaseException:  # the hook never fails; the daemon's log says the rest
            pass

    _until(deadline, check)
    return result[0] if result else ""


def _direct(tool: str, raw: bytes, kind: str, deadline: float) -> tuple[str, str]:
    """Handle the hook in this process (no daemon): import the library, within the deadline for
    prompts. Returns (stdout, stderr)."""
    result: list[tuple[str, str]] = []

    def work() -> None:
        try:
            result.append(_service().run_direct(tool, raw))
        except BaseException as e:  # reported on stderr; the hook itself never fails
            result.append(("", f"graphmem hook: {type(e).__name__}: {e}"))

    if kind == "stop":
        work()  # a Stop is worth its time: the turn must be stored or spooled
    else:
        _until(deadline, work)
    if not result:
        return "", ""
    return result[0]


def hook_main(argv: list[str]) -> int:
    """``graphmem hook <tool>``: always returns 0."""
    tool = ""
    budget = 0.0
    use_daemon = os.environ.get("GRAPHMEM_HOOK_DAEMON", "1").lower() not in ("0", "false", "no", "off")
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg in ("-h", "--help"):
            sys.stdout.write(_USAGE)
            return 0
        if arg == "--no-daemon":
            use_daemon = False
        elif arg == "--budget" or arg.startswith("--budget="):
            if "=" in arg:
                value = arg.split("=", 1)[1]
            else:
                value = argv[i] if i < len(argv) else ""
                i += 1
            try:
                budget = float(value)
            except ValueError:
                budget = 0.0
        elif not tool and not arg.startswith("-"):
            tool = _TOOL_ALIASES.get(arg.lower(), arg.lower())
    if tool not in TOOLS:
        _emit("", f"graphmem hook: expected one of {', '.join(TOOLS)} (got {tool or 'nothing'!r})")
        return 0
    try:
        raw = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    except (OSError, ValueError):
        raw = b""
    if not raw.strip():
        _emit("", "graphmem hook: no hook input on stdin")
        return 0
    kind = event_kind(raw)
    if kind == "other":
        return 0  # an event graphmem does not handle: nothing to say
    if kind == "stop":
        limit = _float_env("GRAPHMEM_HOOK_STOP_BUDGET", DEFAULT_STOP_BUDGET)
    else:
        limit = budget if budget > 0 else _float_env("GRAPHMEM_HOOK_BUDGET", DEFAULT_BUDGET)
    deadline = _T0 + limit - 0.02
    home = home_dir()
    stdout = stderr = ""
    t_send = time.monotonic()
    try:
        if not use_daemon:
            stdout, stderr = _direct(tool, raw, kind, deadline)
        else:
            try:
                stdout, stderr = hook_request(home, tool, raw, timeout=deadline - time.monotonic())
            except NoDaemon:
                # a bad setting would kill the daemon at start: say so instead of spawning it
                problem = _settings_problem(deadline)
                if not problem:
                    spawn_daemon(home)
                if kind == "stop":
                    stdout, stderr = _direct(tool, raw, kind, deadline)  # it reports the same line
                elif problem:
                    stderr = problem
            except (TimeoutError, OSError, ValueError) as e:
                stderr = f"graphmem hook: no answer from the daemon ({type(e).__name__}: {e})"
                if kind == "stop" and isinstance(e, (ConnectionError, ForeignPeer)):
                    stdout, stderr = _direct(tool, raw, kind, deadline)
    except Exception as e:  # the hook never fails the CLI
        stdout, stderr = "", f"graphmem hook: {type(e).__name__}: {e}"
    if time.monotonic() > _T0 + limit and kind != "stop":
        stdout = ""  # too late to be useful: print nothing rather than hold the prompt longer
    if os.environ.get("GRAPHMEM_HOOK_TIMING"):
        now = time.monotonic()
        stderr += (f"\ngraphmem hook timing: client_start_ms={(t_send - _T0) * 1000:.1f} "
                   f"round_trip_ms={(now - t_send) * 1000:.1f}")
    _emit(stdout, stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover - `python -S .../client.py claude-code`
    sys.exit(hook_main(sys.argv[1:]))
