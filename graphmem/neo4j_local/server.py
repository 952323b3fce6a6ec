"""The managed local Neo4j Community server (the zero-configuration default).

Layout under ``$GRAPHMEM_HOME`` (0700)::

    neo4j-password                  generated password (0600)
    neo4j/<version>/pom.xml         what Maven resolves: the server jars and Neo4j Browser
    neo4j/<version>/lib/            the jars: hard links to Maven's local repository (one copy on disk),
                                    copies when it is on another file system
    neo4j/<version>/conf/neo4j.conf written on every start (loopback only, auth on, memory sized
                                    from the store and the machine: see :mod:`.sizing`)
    neo4j/<version>/data|logs|run   the store and logs; kept across down/up
    neo4j/<version>/server.json     pid, ports and Java of the running server

The server is the real Neo4j entry point (``org.neo4j.server.Neo4jCommunity`` from 2025.12 on,
``org.neo4j.server.CommunityEntryPoint`` before), started with the JVM flags the ``bin/neo4j``
script would add. The Neo4j release tarball is not on Maven Central, so it is assembled from the jars.
The initial password is written as a salted hash (:mod:`.auth`), never passed on a command line.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import zipfile
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from ..errors import ServerError
from .auth import write_initial_password
from .java import JavaRuntime, find_java
from .sizing import AUTO, MemoryPlan, machine_memory, plan_memory, store_bytes

__all__ = ["BROWSER_VERSION", "ManagedServer", "ServerState", "link_or_copy", "port_free"]

BROWSER_VERSION = "5.24.0"
"""Newest Neo4j Browser on Maven Central (newer builds ship only inside the release tarballs)."""

JVM_FLAGS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
]
JVM_FLAGS_21 = ["--enable-native-access=ALL-UNNAMED", "--add-modules=jdk.incubator.vector"]


def _version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.replace("-", ".").split(".") if p.isdigit())


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    """True when nothing listens on ``host:port`` and we may bind it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _pick_port(preferred: int, avoid: set[int]) -> int:
    if preferred not in avoid and port_free(preferred):
        return preferred
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in avoid:
            return port
    raise ServerError("could not find a free TCP port on 127.0.0.1")


def link_or_copy(src: Path, dest: Path) -> None:
    """``dest`` as a hard link to ``src`` (one copy on disk), or a copy across file systems.
    Never a symbolic link: a symlinked ``lib`` broke ``neo4j-admin`` on 5.26."""
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child counts as dead
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.split(")")[-1].split()[0] == "Z":
            return False
    return True


def _new_password() -> str:
    """A random password (24 bytes, URL-safe) that starts with a letter or digit (one starting
    with "-" reads as an option to command-line tools)."""
    while True:
        pw = secrets.token_urlsafe(24)
        if pw[0].isalnum():
            return pw


@dataclass
class ServerState:
    """What ``server.json`` records of a started server."""

    version: str
    pid: int
    bolt_port: int
    http_port: int
    java_home: str
    started_at: float

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def browser_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/browser/"


class ManagedServer:
    """Install, configure, start, stop and inspect the local Neo4j under ``home``.

    ``heap`` (the maximum Java heap) and ``pagecache`` are sizes (``512m``, ``2g``) or ``auto``:
    sized at each start from the store and the machine (:func:`.sizing.plan_memory`)."""

    def __init__(
        self,
        home: Path,
        version: str,
        *,
        java_home: Path | None = None,
        heap: str = AUTO,
        pagecache: str = AUTO,
        bolt_port: int = 7687,
        http_port: int = 7474,
        start_timeout: float = 180.0,
    ) -> None:
        self.home = home.expanduser().absolute()
        self.version = version
        self.java_home = java_home
        self.heap = heap
        self.pagecache = pagecache
        self.bolt_port = bolt_port
        self.http_port = http_port
        self.start_timeout = start_timeout

    # -- paths -----------------------------------------------------------------------------
    @property
    def server_dir(self) -> Path:
        return self.home / "neo4j" / self.version

    @property
    def lib_dir(self) -> Path:
        return self.server_dir / "lib"

    @property
    def conf_dir(self) -> Path:
        return self.server_dir / "conf"

    @property
    def logs_dir(self) -> Path:
        return self.server_dir / "logs"

    @property
    def password_file(self) -> Path:
        return self.home / "neo4j-password"

    @property
    def state_file(self) -> Path:
        return self.server_dir / "server.json"

    @property
    def console_log(self) -> Path:
        return self.logs_dir / "console.log"

    # -- helpers ---------------------------------------------------------------------------
    def _ensure_home(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        os.chmod(self.home, 0o700)

    def password(self, *, create: bool = False) -> str:
        """The server's password (generated into a 0600 file on first use)."""
        if self.password_file.is_file():
            return self.password_file.read_text().strip()
        if not create:
            raise ServerError(f"no password file at {self.password_file}: run `graphmem db up` first")
        self._ensure_home()
        pw = _new_password()
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(pw + "\n")
        return pw

    def installed(self) -> bool:
        return self.lib_dir.is_dir() and any(self.lib_dir.glob(f"neo4j-{self.version}.jar"))

    def _main_class(self) -> str:
        jar = self.lib_dir / f"neo4j-{self.version}.jar"
        with zipfile.ZipFile(jar) as z:
            names = set(z.namelist())
        for cls in ("org/neo4j/server/Neo4jCommunity.class", "org/neo4j/server/CommunityEntryPoint.class"):
            if cls in names:
                return cls[: -len(".class")].replace("/", ".")
        raise ServerError(f"{jar.name} holds no known Neo4j entry point")

    def _java(self) -> JavaRuntime:
        return find_java(_version_tuple(self.version), self.java_home)

    def _tail_log(self, lines: int = 30) -> str:
        chunks = []
        for f in (self.console_log, self.logs_dir / "neo4j.log", self.logs_dir / "debug.log"):
            if f.is_file():
                text = f.read_text(errors="replace").splitlines()[-lines:]
                chunks.append(f"--- {f} ---\n" + "\n".join(text))
        return "\n".join(chunks) or "(no log written)"

    # -- install ---------------------------------------------------------------------------
    def install(self, *, quiet: bool = True) -> None:
        """Resolve the server jars from Maven Central (once; later calls return at once)."""
        if self.installed():
            return
        self._ensure_home()
        mvn = shutil.which("mvn")
        if mvn is None:
            raise ServerError(
                "Maven (`mvn`) is needed to fetch the Neo4j server jars from Maven Central. Install Maven, "
                "or run Neo4j yourself (docker/compose.yml, or the official tarball from the Neo4j "
                "Deployment Center) and set GRAPHMEM_NEO4J_URI and GRAPHMEM_NEO4J_PASSWORD."
            )
        self.server_dir.mkdir(parents=True, exist_ok=True)
        tmpl = Template((resources.files(__package__) / "templates" / "pom.xml").read_text(encoding="utf-8"))
        (self.server_dir / "pom.xml").write_text(
            tmpl.substitute(neo4j_version=self.version, browser_version=BROWSER_VERSION)
        )
        staging = self.server_dir / "lib.partial"
        shutil.rmtree(staging, ignore_errors=True)
        classpath = self.server_dir / "classpath.txt"
        cmd = [
            mvn, "-B", "-f", str(self.server_dir / "pom.xml"), "dependency:build-classpath",
            f"-Dmdep.outputFile={classpath}", "-DincludeScope=runtime",
        ]
        if quiet:
            cmd.insert(2, "-q")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
            raise ServerError(f"Maven could not resolve Neo4j {self.version}:\n{tail}")
        jars = [Path(p) for p in classpath.read_text().strip().split(os.pathsep) if p.endswith(".jar")]
        classpath.unlink()
        if not jars:
            raise ServerError(f"Maven resolved no jar for Neo4j {self.version}")
        staging.mkdir(parents=True)
        for jar in jars:
            link_or_copy(jar, staging / jar.name)
        staging.rename(self.lib_dir)  # atomic: a half-finished install is never taken as installed

    # -- configure -------------------------------------------------------------------------
    def memory_plan(self) -> MemoryPlan:
        """The heap and page cache the next start uses (from the store as it is now)."""
        try:
            return plan_memory(self.heap, self.pagecache, store=store_bytes(self.server_dir / "data"),
                               machine=machine_memory())
        except ValueError as e:
            raise ServerError(f"GRAPHMEM_HEAP / GRAPHMEM_PAGECACHE: {e}") from e

    def _write_conf(self, bolt: int, http: int, memory: MemoryPlan) -> None:
        for d in ("conf", "data", "logs", "run", "import", "plugins"):
            (self.server_dir / d).mkdir(parents=True, exist_ok=True)
        tmpl = Template((resources.files(__package__) / "templates" / "neo4j.conf").read_text(encoding="utf-8"))
        sd = self.server_dir
        (self.conf_dir / "neo4j.conf").write_text(
            tmpl.substitute(
                bolt_port=bolt, http_port=http, heap_initial=memory.heap_initial, heap_max=memory.heap_max,
                pagecache=memory.pagecache,
                data_dir=sd / "data", logs_dir=sd / "logs", run_dir=sd / "run",
                import_dir=sd / "import", plugins_dir=sd / "plugins", lib_dir=sd / "lib",
            )
        )

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
        env["NEO4J_HOME"] = str(self.server_dir)
        env["NEO4J_CONF"] = str(self.conf_dir)
        return env

    def _set_initial_password(self) -> None:
        """Before the first start: the password file's password becomes neo4j's (see :mod:`.auth`)."""
        marker = self.server_dir / "data" / ".graphmem-password-set"
        if marker.exists():
            return
        write_initial_password(self.server_dir / "data", self.password(create=True))
        marker.write_text("1\n")

    # -- state -----------------------------------------------------------------------------
    def state(self) -> ServerState | None:
        """The recorded state of a server that is still alive, else None."""
        try:
            data = json.loads(self.state_file.read_text())
            st = ServerState(**data)
        except (OSError, ValueError, TypeError):
            return None
        return st if _pid_alive(st.pid) and self._runs_here(st.pid) else None

    def _runs_here(self, pid: int) -> bool:
        """Whether ``pid`` is this server's JVM, not another process that got its pid after a reboot
        or a crash (where ``/proc`` cannot tell, the pid is trusted)."""
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return True
        return f"--home-dir={self.server_dir}".encode() in args

    def _bolt_ready(self, st: ServerState, password: str) -> bool:
        from neo4j import GraphDatabase
        from neo4j import exceptions as nex

        try:
            with GraphDatabase.driver(
                st.uri, auth=("neo4j", password), connection_timeout=2, notifications_min_severity="OFF"
            ) as d:
                d.verify_connectivity()
                d.execute_query("RETURN 1", database_="neo4j")
            return True
        except (nex.Neo4jError, nex.DriverError, OSError):
            return False

    # -- lifecycle -------------------------------------------------------------------------
    def start(self, *, wait: bool = True) -> ServerState:
        """Install if needed, then start the server; harmless when it already runs."""
        current = self.state()
        if current is not None:
            if wait:
                self._wait_ready(current, None)
            return current
        self.install()
        from .. import browser  # the Browser guide and style, served by Neo4j itself

        browser.install(self.server_dir, self.lib_dir)
        java = self._java()
        previous: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError):
            previous = json.loads(self.state_file.read_text())
        bolt = _pick_port(int(previous.get("bolt_port", self.bolt_port)), set())
        http = _pick_port(int(previous.get("http_port", self.http_port)), {bolt})
        memory = self.memory_plan()
        self._write_conf(bolt, http, memory)
        self._set_initial_password()
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        flags = list(JVM_FLAGS) + (JVM_FLAGS_21 if java.major >= 21 else [])
        cmd = [
            str(java.java), f"-Xms{memory.heap_initial}", f"-Xmx{memory.heap_max}", *flags,
            "-cp", f"{self.lib_dir}/*", self._main_class(),
            f"--home-dir={self.server_dir}", f"--config-dir={self.conf_dir}", "--console-mode",
        ]
        with open(self.console_log, "ab") as log:
            proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=self._env(), cwd=self.server_dir, start_new_session=True,
            )
        st = ServerState(
            version=self.version, pid=proc.pid, bolt_port=bolt, http_port=http,
            java_home=str(java.home), started_at=time.time(),
        )
        self.state_file.write_text(json.dumps(asdict(st), indent=2))
        if wait:
            try:
                self._wait_ready(st, proc)
            except BaseException:
                # never leave a half-started server behind
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
                raise
        return st

    def _wait_ready(self, st: ServerState, proc: subprocess.Popen[bytes] | None) -> None:
        password = self.password()
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise ServerError(
                    f"Neo4j {self.version} exited with code {proc.returncode} while starting.\n{self._tail_log()}"
                )
            if proc is None and not _pid_alive(st.pid):
                raise ServerError(f"Neo4j {self.version} (pid {st.pid}) is gone.\n{self._tail_log()}")
            if self._bolt_ready(st, password):
                return
            time.sleep(0.5)
        raise ServerError(
            f"Neo4j {self.version} did not answer on {st.uri} within {self.start_timeout:.0f} s.\n{self._tail_log()}"
        )

    def stop(self, *, timeout: float = 60.0) -> bool:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout``). False when it was not running."""
        st = self.state()
        if st is None:
            return False
        with contextlib.suppress(ProcessLookupError):
            os.killpg(st.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _pid_alive(st.pid):
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(st.pid, os.WNOHANG)
            time.sleep(0.2)
        if _pid_alive(st.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(st.pid, signal.SIGKILL)
        return True

    def kill(self) -> bool:
        """SIGKILL the server (fault-injection tests). False when it was not running."""
        st = self.state()
        if st is None:
            return False
        with contextlib.suppress(ProcessLookupError):
            os.killpg(st.pid, signal.SIGKILL)
        for _ in range(100):
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(st.pid, os.WNOHANG)
            if not _pid_alive(st.pid):
                break
            time.sleep(0.1)
        return True

    def status(self) -> dict[str, Any]:
        """A plain description for ``graphmem db status``."""
        st = self.state()
        info: dict[str, Any] = {
            "home": str(self.home),
            "version": self.version,
            "installed": self.installed(),
            "running": st is not None,
            "password_file": str(self.password_file),
        }
        if st is not None:
            info.update(
                pid=st.pid, uri=st.uri, browser=st.browser_url, java_home=st.java_home,
                ready=self._bolt_ready(st, self.password()) if self.password_file.exists() else False,
            )
        return info
