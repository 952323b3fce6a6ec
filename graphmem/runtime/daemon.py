"""``graphmem daemon``: a long-lived local process that answers the hooks quickly.

It keeps the Neo4j driver (connection pool) and the embedder loaded, and listens on a Unix socket
(``$GRAPHMEM_HOME/daemon.sock``, mode 0600, in the 0700 home; a short path under ``/tmp`` in a
0700 folder of this user when the home path is too long for AF_UNIX). A folder another user owns
or may write to is refused, and so is every connection from a process of another user. The
protocol is one JSON line each way: ``{"v": 1, "op": "hook"|"ping"|"replay"|"stop", ...}``.
Besides the hooks it replays the spool every 15 s while it holds entries (all of it, in a background
thread; hooks replay for at most ``GRAPHMEM_HOOK_REPLAY_SECONDS`` and spool behind a busy replay),
starts the managed Neo4j when it finds it stopped (:mod:`.autostart`) and (``GRAPHMEM_DAEMON_WORKER``,
default on) runs the summarizer worker in a low-priority thread: embeddings, summaries and fact extraction.

One daemon per ``$GRAPHMEM_HOME`` (an ``flock`` on ``daemon.lock`` held for its lifetime). It
remembers the settings it started with (a digest of the GRAPHMEM_*/NEO4J_* variables): a hook
with other settings makes it exit so that the next one starts with the new ones. It exits after
``GRAPHMEM_DAEMON_IDLE`` seconds without a request (default 4 hours; 0 = never).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import signal
import socketserver
import threading
import time
from pathlib import Path
from typing import Any

from ..activity import ForegroundSignal
from ..config import Settings
from ..db.schema import check_embedding, recorded_embedding
from ..embedding.factory import configured_embedding, following
from ..errors import ConfigError, GraphMemError
from .autostart import ManagedRestarter
from .client import PROTOCOL, check_peer, env_key, home_dir, socket_path
from .daemon_cli import CliHost, CliRunner
from .daemon_control import DaemonInfo, daemon_status, start_daemon, stop_daemon
from .service import HookReply, HookService, quiet_driver_logs

__all__ = ["Daemon", "DaemonInfo", "daemon_status", "ensure_private_dir", "start_daemon", "stop_daemon"]

log = logging.getLogger("graphmem.daemon")

REPLAY_EVERY = 15.0
DEFAULT_IDLE = 4 * 3600.0
_MAX_REQUEST = 64 * 1024 * 1024
CLI_WARM_WAIT = 10.0
"""Seconds a CLI command waits for the embedder still loading in the daemon before running itself."""


def _float_env(name: str, default: float) -> float:
    try:
        return float(os.environ[name])
    except (KeyError, ValueError):
        return default


def ensure_private_dir(path: str, *, uid: int | None = None) -> None:
    """Create ``path`` (mode 0700) when missing; raise :class:`PermissionError` when it is not a
    directory (a symbolic link is not), belongs to another user than ``uid`` (default: this
    process's), or is writable by its group or by others: another local user could then replace
    the daemon's socket with one of their own."""
    uid = os.getuid() if uid is None else uid
    parent = os.path.dirname(path)
    if parent and not os.path.isdir(parent):
        os.makedirs(parent, mode=0o700, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    st = os.lstat(path)
    if st.st_mode & 0o170000 != 0o040000:
        raise PermissionError(f"{path} is not a directory: refusing to put graphmem's daemon socket there")
    if st.st_uid != uid:
        raise PermissionError(
            f"{path} belongs to uid {st.st_uid}, not to this user (uid {uid}): refusing to put graphmem's "
            "daemon socket there (remove it, or set GRAPHMEM_HOME to a shorter path of yours)"
        )
    if st.st_mode & 0o022:
        raise PermissionError(
            f"{path} is writable by other users (mode {st.st_mode & 0o777:o}): refusing to put graphmem's "
            f"daemon socket there (chmod 700 {path})"
        )


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: Daemon

    def verify_request(self, request: Any, client_address: Any) -> bool:
        """Serve processes of the daemon's own user only."""
        try:
            check_peer(request, uid=self.owner.uid)
        except OSError as e:
            log.warning("connection refused: %s", e)
            return False
        return True


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        daemon = self.server.owner
        data = b""
        try:
            line = self.rfile.readline(4096)
            if line.startswith(b"GMHOOK "):
                data = self._hook(daemon, line)
            else:
                line += self.rfile.readline(_MAX_REQUEST)
                try:
                    request = json.loads(line.decode("utf-8"))
                    if not isinstance(request, dict):
                        raise ValueError("request is not a JSON object")
                    reply = daemon.dispatch(request)
                except (ValueError, UnicodeDecodeError) as e:
                    reply = {"ok": False, "error": f"bad request: {e}"}
                data = json.dumps(reply, ensure_ascii=True).encode("ascii") + b"\n"
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            pass  # the hook gave up waiting (its budget passed): nothing to do

    def _hook(self, daemon: Daemon, header: bytes) -> bytes:
        parts = header.decode("ascii", errors="replace").split()
        if len(parts) < 5 or parts[1] != str(PROTOCOL):
            out, err = "", "graphmem daemon: unsupported hook request (graphmem was upgraded? restart the daemon)"
        else:
            tool, env = parts[2], parts[3]
            if not daemon.accepts(env):
                return b"RESTART\n"
            raw = self.rfile.read(_MAX_REQUEST)
            reply = daemon.hook(tool, raw)
            out, err = reply.stdout, reply.stderr
        o, e = out.encode("utf-8", errors="replace"), err.encode("utf-8", errors="replace")
        return f"{len(o)} {len(e)}\n".encode("ascii") + o + e


class Daemon:
    """The daemon of one ``$GRAPHMEM_HOME``; :meth:`run` serves until stopped."""

    def __init__(
        self,
        home: Path | None = None,
        settings: Settings | None = None,
        *,
        worker: bool | None = None,
        idle_timeout: float | None = None,
        cli_runner: CliRunner | None = None,
    ) -> None:
        """``cli_runner`` runs the CLI's read commands for clients (the ``cli`` op,
        :mod:`.daemon_cli`); without it the clients run them themselves."""
        self.settings = settings or Settings.load()
        self._foreground = ForegroundSignal.for_home(self.settings.home)
        self.home = home or Path(home_dir())
        self.socket = Path(socket_path(str(self.home)))
        self.env = env_key()
        self.uid = os.getuid()
        """Connections from processes of other users are refused."""
        self.worker_enabled = (
            os.environ.get("GRAPHMEM_DAEMON_WORKER", "1").strip().lower() not in ("0", "false", "no", "off")
            if worker is None else worker
        )
        self.idle_timeout = _float_env("GRAPHMEM_DAEMON_IDLE", DEFAULT_IDLE) if idle_timeout is None else idle_timeout
        self.started = time.time()
        self.last_request = time.monotonic()
        self.requests = 0
        self._stop = threading.Event()
        self._db_lock = threading.Lock()
        self._db: Any = None
        self._mem_text: Any = None
        self._mem_full: Any = None
        self._embedder: Any = None
        self.embedder_ready = False
        self.embedder_error: str | None = None
        self.search_warm_up: str | None = None
        """What the warm-up of the first searches did (None: not started yet)."""
        self._embedder_settled = threading.Event()
        """Set once the warm-up made the embedder, failed to, or found that none is configured."""
        self._worker_thread: Any = None
        self._worker_db: Any = None
        self._server: _Server | None = None
        self._lock_fd: int | None = None
        self.service = HookService(self.home, self._memory, search_memory=self._search_memory,
                                   replay_seconds=self.settings.hook_replay_seconds)
        self.restarter = ManagedRestarter(self.settings)
        self.cli = (CliHost(self.settings, cli_runner, self.env, embedder=self._cli_embedder)
                    if cli_runner is not None else None)
        quiet_driver_logs()

    # -- the database and the embedder ---------------------------------------------------------
    def _memory(self) -> Any:
        """The text-only GraphMemory (opened on first use; DatabaseUnavailable until it opens)."""
        with self._db_lock:
            if self._mem_text is None:
                from ..memory import GraphMemory
                from .service import open_hook_database

                db = open_hook_database(self.settings)
                model, dims = configured_embedding(self.settings)
                if self._embedder is not None:
                    model, dims = self._embedder.model, self._embedder.dimensions
                self._db = db
                self._mem_text = GraphMemory(db, embedder=None, embedding_model=model, embedding_dimensions=dims,
                                             foreground=self._foreground)
                self._mem_full = (GraphMemory(db, embedder=self._embedder, foreground=self._foreground)
                                  if self._embedder is not None else None)
            return self._mem_text

    def _search_memory(self) -> Any:
        text = self._memory()
        if self.embedder_ready and self._mem_full is not None:
            return self._mem_full
        return text

    def _recorded_embedding(self) -> tuple[str | None, int | None] | None:
        """The embedding model and size the database records, or ``None`` when it is not reachable."""
        try:
            self._memory()
            return recorded_embedding(self._db)
        except GraphMemError as e:
            log.info("Neo4j not reachable yet, the embedder is chosen without it: %s", e)
            return None

    def _cli_embedder(self) -> tuple[bool, Any]:
        """(ready, embedder) for the CLI's commands: ready once the warm-up made the embedder (it is
        waited for, up to CLI_WARM_WAIT seconds), or found that none is configured; not after it failed."""
        settled = self._embedder_settled.wait(CLI_WARM_WAIT)
        ready = settled and self.embedder_error is None and (self._embedder is None or self.embedder_ready)
        return ready, self._embedder

    def _warm_up(self) -> None:
        try:
            from ..embedding import make_embedder

            recorded = self._recorded_embedding()
            emb = make_embedder(following(self.settings, recorded[0]) if recorded is not None else self.settings)
            if emb is None:
                self._embedder_settled.set()  # none configured: text-only, ready as it is
                return
            if recorded is not None and recorded[0]:  # its vectors would not fit the indexes
                check_embedding(recorded[0], recorded[1], model=emb.model, dimensions=emb.dimensions)
            with self._db_lock:
                self._embedder = emb
                if self._db is not None:
                    from ..memory import GraphMemory

                    self._mem_full = GraphMemory(self._db, embedder=emb,
                                                 foreground=self._foreground)
            t0 = time.perf_counter()
            emb.embed_one("graphmem warm-up")
            self.embedder_ready = True
            self._embedder_settled.set()
            log.info("embedder %s ready in %.2f s", emb.model, time.perf_counter() - t0)
        except Exception as e:  # prompts stay text-only
            self.embedder_error = str(e).splitlines()[0] if str(e) else type(e).__name__
            self._embedder_settled.set()
            log.warning("embedder unavailable, searches are text-only: %s", self.embedder_error)
        try:  # a first round trip, so that the first prompt does not pay for the connection
            self.service.ready(self._memory())
        except GraphMemError as e:
            log.info("Neo4j not reachable yet: %s", e)
        else:  # beside the worker: a server just started plans the first prompts' statements now
            threading.Thread(target=self._warm_searches, name="graphmem-search-warm-up", daemon=True).start()
        if self.worker_enabled and not self._stop.is_set():
            self._start_worker()

    def _warm_searches(self) -> None:
        """The first prompts' searches, run once now, so that a server just started has planned them;
        what it did goes to ``search_warm_up`` (``graphmem daemon status``)."""
        self.search_warm_up = "running"
        try:
            report = self._search_memory().warm_up()
        except Exception as e:  # a bonus: the daemon serves without it
            self.search_warm_up = f"stopped: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
        else:
            self.search_warm_up = report.summary()
        log.info("search warm-up: %s", self.search_warm_up)

    def _start_worker(self) -> None:
        try:
            from ..db import open_database
            from ..facts import make_fact_extractor
            from ..providers import make_summarizer
            from ..worker import SummaryWorker, WorkerConfig
            summarizer = make_summarizer(self.settings)
            self._worker_db = open_database(self.settings)  # normal timeouts and retries, unlike the hooks'
            worker = SummaryWorker(self._worker_db, summarizer, self._embedder if self.embedder_ready else None,
                                   WorkerConfig.from_settings(self.settings), owner=f"daemon:{os.getpid()}",
                                   foreground=self._foreground, extractor=make_fact_extractor(self.settings))
            self._worker_thread = worker.start_thread(nice=self.settings.worker_nice)
            log.info("summarizer worker started")
        except GraphMemError as e:
            log.warning("summarizer worker not started: %s", e)

    # -- background loop -----------------------------------------------------------------------
    def _background(self) -> None:
        while not self._stop.wait(REPLAY_EVERY if self.service.spool.pending() else 5.0):
            if self.idle_timeout > 0 and time.monotonic() - self.last_request > self.idle_timeout:
                log.info("idle for %.0f s: exiting", self.idle_timeout)
                self.shutdown()
                return
            self.restarter.maybe_start()
            if self.worker_enabled and self._worker_thread is None and self._db is not None:
                self._start_worker()
            if self.service.spool.pending():
                try:
                    r = self.service.replay_spool()  # unbounded: this thread answers no hook
                    if r.entries or r.rejected:
                        log.info("spool replay: %s", r.as_dict())
                except (GraphMemError, OSError) as e:
                    log.info("spool replay postponed: %s", e)

    # -- requests ------------------------------------------------------------------------------
    def accepts(self, env: str | None) -> bool:
        """Whether a client with these settings may use this daemon (else it exits, and the
        client's next hook starts one with the new settings)."""
        if env in (None, self.env):
            return True
        log.info("a hook runs with other settings: exiting so that the next one starts a fresh daemon")
        threading.Thread(target=self.shutdown, daemon=True).start()
        return False

    def hook(self, tool: str, raw: bytes) -> HookReply:
        self.last_request = time.monotonic()
        self.requests += 1
        return self.service.handle(tool, raw)

    def dispatch(self, request: dict[str, Any]) -> dict[str, Any]:
        self.last_request = time.monotonic()
        self.requests += 1
        op = request.get("op")
        if op == "cli":  # other settings: the client runs the command itself; the hooks keep this daemon
            return self.cli.handle(request) if self.cli is not None else {"ok": False, "fallback": "no CLI here"}
        if not self.accepts(request.get("env")):
            return {"restart": True}
        if op == "hook":
            reply = self.service.handle(str(request.get("tool") or ""), str(request.get("input") or ""))
            return reply.as_dict()
        if op == "ping":
            return {"ok": True, **self.info()}
        if op == "replay":
            try:
                return {"ok": True, "replay": self.service.replay_spool().as_dict()}
            except (GraphMemError, OSError) as e:
                return {"ok": False, "error": str(e)}
        if op == "stop":
            threading.Thread(target=self.shutdown, daemon=True).start()
            return {"ok": True, "pid": os.getpid()}
        return {"stdout": "", "stderr": f"graphmem daemon: unknown op {op!r}"}

    def info(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "protocol": PROTOCOL,
            "env": self.env,
            "uptime_s": round(time.time() - self.started, 1),
            "requests": self.requests,
            "embedder": getattr(self._embedder, "model", None),
            "embedder_ready": self.embedder_ready,
            "embedder_error": self.embedder_error,
            "search_warm_up": self.search_warm_up,
            "neo4j": getattr(self._db, "uri", None),
            "worker": self._worker_thread is not None,
            "spool_pending": self.service.spool.pending(),
            "cli": self.cli.counts() if self.cli is not None else None,
        }

    # -- lifecycle -----------------------------------------------------------------------------
    def _acquire(self, wait: float) -> bool:
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.home / "daemon.lock", os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._lock_fd = fd
                return True
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return False
                time.sleep(0.1)

    def shutdown(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()

    def run(self, *, lock_wait: float = 10.0) -> int:
        """Serve until stopped (SIGTERM, SIGINT, ``graphmem daemon stop``, idle timeout).
        Returns 0, or 1 when another daemon holds this home."""
        if not self._acquire(lock_wait):
            log.info("another daemon serves %s", self.home)
            return 1
        sock = self.socket
        try:
            try:
                ensure_private_dir(str(sock.parent), uid=self.uid)
            except PermissionError as e:
                raise ConfigError(str(e)) from e
            with contextlib.suppress(FileNotFoundError):
                sock.unlink()  # we hold the lock: any socket left is stale
            old = os.umask(0o177)
            try:
                server = _Server(str(sock), _Handler)
            finally:
                os.umask(old)
            os.chmod(sock, 0o600)
            server.owner = self
            self._server = server
            pid_file = self.home / "daemon.pid"
            pid_file.write_text(json.dumps({"pid": os.getpid(), "socket": str(sock), "env": self.env,
                                            "started": self.started}))
            os.chmod(pid_file, 0o600)
            with contextlib.suppress(OSError):
                (self.home / "daemon.starting").unlink()
            if threading.current_thread() is threading.main_thread():
                for sig in (signal.SIGTERM, signal.SIGINT):
                    signal.signal(sig, lambda *_: threading.Thread(target=self.shutdown, daemon=True).start())
            threading.Thread(target=self._warm_up, name="graphmem-warm-up", daemon=True).start()
            threading.Thread(target=self._background, name="graphmem-background", daemon=True).start()
            log.info("daemon %d listening on %s", os.getpid(), sock)
            server.serve_forever(poll_interval=0.5)
        finally:
            self._stop.set()
            self._cleanup()
            log.info("daemon %d stopped", os.getpid())
        return 0

    def _cleanup(self) -> None:
        if self.cli is not None:
            self.cli.close()
        if self._worker_thread is not None:
            with contextlib.suppress(Exception):
                self._worker_thread.stop(timeout=10)
        if self._server is not None:
            self._server.server_close()
        with contextlib.suppress(OSError):
            self.socket.unlink()
        with contextlib.suppress(OSError):
            pid_file = self.home / "daemon.pid"
            if json.loads(pid_file.read_text()).get("pid") == os.getpid():
                pid_file.unlink()
        for db in (self._db, self._worker_db):
            if db is not None:
                with contextlib.suppress(Exception):
                    db.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
