"""Fault run 4: the real Stop hook with Neo4j down and ``$GRAPHMEM_HOME`` full or read-only."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

from ..servers import clean_env
from ._fault_common import Log, log_stderr

__all__ = ["disk_fault_run"]


# ---------------------------------------------------------------------------------------------
# 4. disk full / read-only home for the spool


def _mount(*args: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _transcript(path: Path, session_id: str, n: int, start: int = 0) -> None:
    lines = []
    for i in range(start, start + n):
        ts = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}.000Z"
        lines.append({"type": "user", "uuid": f"u{i}", "sessionId": session_id, "cwd": str(path.parent),
                      "timestamp": ts, "message": {"role": "user", "content": f"question {i}: why is disk full?"}})
        lines.append({"type": "assistant", "uuid": f"a{i}", "parentUuid": f"u{i}", "sessionId": session_id,
                      "cwd": str(path.parent), "timestamp": ts,
                      "message": {"role": "assistant", "content": [{"type": "text", "text": f"answer {i}: it is."}]}})
    with open(path, "a", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def _hook(home: Path, transcript: Path, session_id: str, *, fsize: int | None = None,
          user: str | None = None, last_answer: str = "answer 2: it is.") -> subprocess.CompletedProcess[str]:
    """The installed Stop hook command (``python -S runtime/client.py claude-code``), no daemon,
    Neo4j unreachable (a closed loopback port)."""
    from graphmem.runtime import client

    env = clean_env()
    env.update({"GRAPHMEM_HOME": str(home), "GRAPHMEM_HOOK_DAEMON": "0",
                "GRAPHMEM_NEO4J_URI": "bolt://127.0.0.1:9", "GRAPHMEM_NEO4J_PASSWORD": "x",
                "GRAPHMEM_CONNECT_TIMEOUT": "1"})
    payload = json.dumps({"session_id": session_id, "transcript_path": str(transcript), "cwd": str(transcript.parent),
                          "hook_event_name": "Stop", "stop_hook_active": False,
                          "last_assistant_message": last_answer})
    cmd = [sys.executable, "-S", str(Path(client.__file__)), "claude-code"]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", "--regid=nogroup", "--clear-groups", *cmd]

    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(cmd, input=payload, capture_output=True, text=True, env=env, timeout=120,
                          preexec_fn=limit if fsize is not None else None)


def disk_fault_run(*, work: Path | None = None, log: Log = log_stderr) -> dict[str, Any]:
    """Stop hooks with Neo4j unreachable and a full or read-only ``$GRAPHMEM_HOME``."""
    from graphmem.runtime.cursors import CursorStore
    from graphmem.runtime.spool import Spool

    base = Path(tempfile.mkdtemp(prefix="graphmem-disk-", dir=work))
    os.chmod(base, 0o755)
    cases: list[dict[str, Any]] = []
    try:
        for kind in ("disk-full", "read-only", "file-size-limit"):
            case_dir = base / kind
            case_dir.mkdir()
            os.chmod(case_dir, 0o755)
            home = case_dir / "home"
            home.mkdir(mode=0o700)
            project = case_dir / "project"
            project.mkdir()
            transcript = project / "t.jsonl"
            sid = f"{kind}-{uuid.uuid4().hex[:6]}"
            _transcript(transcript, sid, 3)
            method = ""
            mounted = False
            fsize: int | None = None
            user: str | None = None
            if kind == "file-size-limit":
                fsize, method = 0, "RLIMIT_FSIZE=0 in the hook process (writes fail with EFBIG)"
            elif kind == "disk-full":
                if _mount("-t", "tmpfs", "-o", "size=16k,mode=0700", "tmpfs", str(home)):
                    mounted, method = True, "tmpfs of 16 KiB filled up"
                    with contextlib.suppress(OSError), open(home / "filler", "wb") as f:
                        while True:
                            f.write(b"x" * 1024)
                            f.flush()
                else:
                    fsize, method = 0, "RLIMIT_FSIZE=0 (no tmpfs mount available)"
            else:
                if _mount("-t", "tmpfs", "-o", "size=64k,mode=0700,ro", "tmpfs", str(home)):
                    mounted, method = True, "read-only tmpfs mount"
                elif os.geteuid() != 0:
                    os.chmod(home, 0o500)
                    method = "chmod 0500 (not root)"
                else:
                    os.chmod(home, 0o500)
                    for d in (case_dir, project):
                        os.chmod(d, 0o777)
                    os.chmod(transcript, 0o666)
                    shutil.chown(home, "nobody")
                    user, method = "nobody", "chmod 0500, hook run as nobody via setpriv"
            try:
                proc = _hook(home, transcript, sid, fsize=fsize, user=user)
                cursor = CursorStore(home).get("claude-code", str(transcript))
                spool_files = [p for p in (home / "spool").glob("*.jsonl")] if (home / "spool").is_dir() else []
                spool_bytes = sum(p.stat().st_size for p in spool_files)
            finally:
                if mounted:
                    _umount(home)
                else:
                    os.chmod(home, 0o700)
                    with contextlib.suppress(LookupError, OSError):
                        shutil.chown(home, "root")
            # space back / writable again: the same Stop now spools all three turns
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir(mode=0o700)
            again = _hook(home, transcript, sid)
            spooled = Spool(home).status()
            err = proc.stderr.strip()
            case = {
                "case": kind,
                "method": method,
                "exit_code": proc.returncode,
                "stdout": proc.stdout.strip()[:200],
                "stderr": err[:400],
                "stderr_lines": len(err.splitlines()),
                "clear_reason": any(w in err for w in ("disk is full", "read-only", "permission denied",
                                                       "File too large", "not permitted", "quota")),
                "traceback": "Traceback" in proc.stderr,
                "cursor_moved": cursor is not None,
                "spool_bytes_left": spool_bytes,
                "after_recovery_exit": again.returncode,
                "after_recovery_spooled_turns": spooled.turns,
                "after_recovery_stderr": again.stderr.strip()[:200],
            }
            case["ok"] = (case["exit_code"] == 0 and case["clear_reason"] and not case["traceback"]
                          and case["stderr_lines"] == 1 and not case["cursor_moved"] and spool_bytes == 0
                          and again.returncode == 0 and spooled.turns == 3 and not proc.stdout.strip())
            log(f"disk faults: {kind} ({method}): exit {proc.returncode}, stderr {err[:160]!r}, ok={case['ok']}")
            cases.append(case)
    finally:
        for kind in ("disk-full", "read-only"):
            if (base / kind / "home").is_mount():
                _umount(base / kind / "home")
        shutil.rmtree(base, ignore_errors=True)
    return {"ok": all(c["ok"] for c in cases), "cases": cases}
