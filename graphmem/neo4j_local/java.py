"""Finding a Java runtime that suits a Neo4j version."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import ServerError

__all__ = ["JavaRuntime", "find_java", "java_range_for", "list_javas"]


@dataclass(frozen=True)
class JavaRuntime:
    home: Path
    major: int

    @property
    def java(self) -> Path:
        return self.home / "bin" / "java"


def java_range_for(neo4j_version: tuple[int, ...]) -> tuple[int, int, list[int]]:
    """(min major, max major, preference order) of the Java versions a Neo4j release runs on.

    5.x: Java 17 or 21. 2025.01-2025.09: Java 21. 2025.10 onwards: Java 21 or 25.
    """
    if neo4j_version < (2025, 1):
        return 17, 21, [21, 17]
    if neo4j_version < (2025, 10):
        return 21, 21, [21]
    return 21, 25, [25, 21]


def _major_of(home: Path) -> int | None:
    release = home / "release"
    if release.is_file():
        m = re.search(r'JAVA_VERSION="(\d+)', release.read_text(errors="replace"))
        if m:
            return int(m.group(1))
    exe = home / "bin" / "java"
    if not exe.is_file():
        return None
    try:
        out = subprocess.run([str(exe), "-version"], capture_output=True, text=True, timeout=20).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'version "(\d+)', out)
    return int(m.group(1)) if m else None


def list_javas(extra: Path | None = None) -> list[JavaRuntime]:
    """Java runtimes found on this machine (explicit one first, then JAVA_HOME, /usr/lib/jvm, PATH)."""
    candidates: list[Path] = []
    if extra is not None:
        candidates.append(extra)
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    for root in (Path("/usr/lib/jvm"), Path("/opt/java"), Path("/Library/Java/JavaVirtualMachines")):
        if root.is_dir():
            for child in sorted(root.iterdir()):
                candidates.append(child / "Contents" / "Home" if (child / "Contents" / "Home").is_dir() else child)
    on_path = shutil.which("java")
    if on_path:
        candidates.append(Path(on_path).resolve().parent.parent)
    seen: set[Path] = set()
    found: list[JavaRuntime] = []
    for c in candidates:
        try:
            home = c.resolve()
        except OSError:
            continue
        if home in seen or not (home / "bin" / "java").is_file():
            continue
        seen.add(home)
        major = _major_of(home)
        if major is not None:
            found.append(JavaRuntime(home, major))
    return found


def find_java(neo4j_version: tuple[int, ...], explicit: Path | None = None) -> JavaRuntime:
    """The best Java for ``neo4j_version``; an explicit home must fit or it is an error."""
    lo, hi, prefs = java_range_for(neo4j_version)
    javas = list_javas(explicit)
    if explicit is not None:
        chosen = next((j for j in javas if j.home == explicit.resolve()), None)
        if chosen is None or not lo <= chosen.major <= hi:
            raise ServerError(f"Java at {explicit} does not suit Neo4j {neo4j_version}: it needs Java {lo}..{hi}")
        return chosen
    for major in prefs:
        for j in javas:
            if j.major == major:
                return j
    fitting = [j for j in javas if lo <= j.major <= hi]
    if fitting:
        return fitting[0]
    have = ", ".join(f"{j.major} ({j.home})" for j in javas) or "none"
    raise ServerError(
        f"no Java {lo}..{hi} found for Neo4j {'.'.join(map(str, neo4j_version))} (found: {have}); "
        "install one or set GRAPHMEM_JAVA_HOME"
    )
