"""``graphmem bench all --growth-results/--import-results``: the report's growth and import sections rebuilt
from the results files their own verbs wrote (the committed ones under ``benchmarks/results``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem_devtools.bench.common import read_part_results
from graphmem_devtools.bench.report import PartOptions, external_part, write_report

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("name", ["growth", "import"])
def test_part_rebuilt_from_the_committed_results(name: str, tmp_path: Path) -> None:
    mod = external_part(name)
    assert mod is not None
    path = RESULTS / f"{name}.json"
    loaded = json.loads(path.read_text())
    part = mod.part_from_results(path, tmp_path)
    assert part.name == name
    assert part.figures["source"] == str(path) and part.figures["source_command"] == loaded["command"]
    for key, value in loaded["figures"].items():
        assert part.figures[key] == value  # every figure of the file reaches report.json unchanged
    assert part.notes[0].startswith(f"Figures read from `{path}`") and loaded["command"] in part.notes[0]
    assert part.notes[1:] == loaded["notes"]
    assert part.headline and part.plots
    for p in part.plots:
        assert p.parent == tmp_path and p.read_bytes()[:8] == PNG

    md, js = write_report([part], out_dir=tmp_path, command=f"graphmem bench all --parts {name}", mem=None)
    text = md.read_text()
    assert f"## {part.title}" in text and "not measured in this run" in text
    assert all(f"]({p.name})" in text for p in part.plots)
    assert json.loads(js.read_text())["parts"][name]["figures"]["source"] == str(path)


def test_results_for_names_the_file_of_each_external_part(tmp_path: Path) -> None:
    opts = PartOptions(growth_results=tmp_path / "g.json")
    assert opts.results_for("growth") == tmp_path / "g.json"
    assert opts.results_for("import") is None and opts.results_for("writes") is None


def test_a_wrong_results_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read the growth results"):
        read_part_results(tmp_path / "missing.json", "growth")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="is not a results JSON"):
        read_part_results(bad, "growth")
    with pytest.raises(ValueError, match="not of `graphmem bench growth`"):
        read_part_results(RESULTS / "import.json", "growth")
    nofig = tmp_path / "nofig.json"
    nofig.write_text(json.dumps({"name": "growth"}))
    with pytest.raises(ValueError, match="no figures"):
        read_part_results(nofig, "growth")


def test_cli_accepts_the_results_options(tmp_path: Path) -> None:
    import argparse

    from graphmem_devtools.cli.bench_cmd import _options, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["bench", "all", "--growth-results", str(tmp_path / "g.json"),
                              "--import-results", str(tmp_path / "i.json")])
    opts = _options(args)
    assert opts.growth_results == tmp_path / "g.json" and opts.import_results == tmp_path / "i.json"
