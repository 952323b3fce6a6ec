"""Usage errors of the CLI: one line naming the option, exit code 2, no traceback."""

from __future__ import annotations

import pytest

from graphmem.cli.main import EXIT_USAGE, run


@pytest.mark.parametrize("argv", [["search", "retry policy", "--k=--"], ["sessions", "list", "--limit=--"]])
def test_an_option_given_dash_dash_as_its_value_is_a_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        run(argv)
    assert exc.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    option = argv[-1].partition("=")[0]
    assert err.splitlines()[-1] == f"graphmem: error: argument {option}: '--' is not a value"
    assert "Traceback" not in err


def test_dash_dash_after_the_separator_is_left_to_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        run(["search", "--k", "x", "--", "--k=--"])
    assert exc.value.code == EXIT_USAGE
    assert "invalid int value: 'x'" in capsys.readouterr().err  # argparse's own check, not the '--' one
