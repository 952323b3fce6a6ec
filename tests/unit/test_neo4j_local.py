"""The managed server's memory sizing and initial password file (no server needed)."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest

from graphmem.neo4j_local.auth import auth_line, write_initial_password
from graphmem.neo4j_local.server import ManagedServer, link_or_copy
from graphmem.neo4j_local.sizing import GiB, MiB, format_size, parse_size, plan_memory, store_bytes


@pytest.mark.parametrize(
    ("text", "size"),
    [("512m", 512 * MiB), ("2g", 2 * GiB), ("2GiB", 2 * GiB), ("1024k", MiB), ("1048576", MiB), (" 1.5g ", 1536 * MiB)],
)
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "2x", "-1g"])
def test_parse_size_refuses_what_is_not_a_size(text: str) -> None:
    with pytest.raises(ValueError, match="not a size"):
        parse_size(text)


def test_format_size_rounds_up_to_whole_mebibytes() -> None:
    assert format_size(512 * MiB) == "512m"
    assert format_size(512 * MiB + 1) == "513m"


def test_an_empty_store_on_a_large_machine_starts_small_under_the_old_ceilings() -> None:
    plan = plan_memory("auto", "auto", store=0, machine=64 * GiB)
    assert (plan.heap_initial, plan.heap_max, plan.pagecache) == ("128m", "2048m", "128m")


def test_the_page_cache_follows_the_store_up_to_its_ceiling() -> None:
    assert plan_memory("auto", "auto", store=300 * MiB, machine=64 * GiB).pagecache == "664m"
    assert plan_memory("auto", "auto", store=5 * GiB, machine=64 * GiB).pagecache == "2048m"


def test_a_small_machine_gets_a_smaller_heap_and_cache() -> None:
    plan = plan_memory("auto", "auto", store=1 * GiB, machine=2 * GiB)
    assert plan.heap_max == "512m"  # the floor (an eighth would be 256m)
    assert plan.pagecache == "512m"  # a quarter of the machine


def test_an_unknown_machine_keeps_the_ceilings() -> None:
    plan = plan_memory("auto", "auto", store=10 * GiB, machine=None)
    assert (plan.heap_max, plan.pagecache) == ("2048m", "2048m")


def test_explicit_sizes_are_kept_and_the_heap_still_starts_small() -> None:
    plan = plan_memory("1g", "256m", store=10 * GiB, machine=64 * GiB)
    assert (plan.heap_initial, plan.heap_max, plan.pagecache) == ("128m", "1024m", "256m")
    assert plan_memory("64m", "auto", store=0, machine=None).heap_initial == "64m"


def test_store_bytes_counts_the_database_files(tmp_path: Path) -> None:
    assert store_bytes(tmp_path) == 0
    (tmp_path / "databases" / "neo4j").mkdir(parents=True)
    (tmp_path / "databases" / "neo4j" / "neostore").write_bytes(b"x" * 1000)
    (tmp_path / "transactions").mkdir()
    (tmp_path / "transactions" / "log.0").write_bytes(b"x" * 5000)  # not mapped by the page cache
    assert store_bytes(tmp_path) == 1000


def test_auth_line_is_the_one_neo4j_admin_writes() -> None:
    """Reference: `neo4j-admin dbms set-initial-password SecretPw12345` (2026.08.1) wrote this line."""
    salt = bytes.fromhex("558bd2f236e0a855af7d0e498b9d78bdea115507bba4f5e24d385e5a7c27a699")
    assert auth_line("SecretPw12345", salt=salt) == (
        "neo4j:SHA-256,58834830d49289944ad7ddc42b9d0146122603ee84fa76f8cb95f21f03e9fb84,"
        "558bd2f236e0a855af7d0e498b9d78bdea115507bba4f5e24d385e5a7c27a699,1024:"
    )


def test_the_initial_password_file_is_private_and_holds_no_password(tmp_path: Path) -> None:
    path = write_initial_password(tmp_path / "data", "-a-Secret_pw")
    assert path == tmp_path / "data" / "dbms" / "auth.ini"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    text = path.read_text()
    assert "-a-Secret_pw" not in text and text.startswith("neo4j:SHA-256,") and text.endswith(",1024:\n")
    assert os.listdir(path.parent) == ["auth.ini"]


def test_jars_are_hard_linked_or_copied_across_file_systems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "repo.jar"
    src.write_bytes(b"PK jar")
    link_or_copy(src, tmp_path / "linked.jar")
    assert os.path.samefile(src, tmp_path / "linked.jar") and os.stat(src).st_nlink == 2

    def cross_device(a: object, b: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", cross_device)
    link_or_copy(src, tmp_path / "copied.jar")
    copied = tmp_path / "copied.jar"
    assert copied.read_bytes() == b"PK jar" and not copied.is_symlink() and not os.path.samefile(src, copied)


def test_a_recorded_pid_now_held_by_another_process_is_not_the_server(tmp_path: Path) -> None:
    """After a reboot or a crash, server.json may name a pid that another process now has: that
    process is neither waited for nor stopped."""
    server = ManagedServer(tmp_path, "2026.08.1")
    server.state_file.parent.mkdir(parents=True, exist_ok=True)
    server.state_file.write_text(json.dumps({"version": "2026.08.1", "pid": os.getpid(), "bolt_port": 1,
                                             "http_port": 2, "java_home": "/nowhere", "started_at": 0.0}))
    assert server.state() is None
    assert server.stop() is False
