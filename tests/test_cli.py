"""The command line: `optrules fit` prints readable rules, metrics and the solve report."""

from __future__ import annotations

import re

import pytest

from optrules.cli import main


def test_fit_tic_tac_toe_with_the_ilp(capsys):
    assert main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover"]) == 0
    out = capsys.readouterr().out
    assert "IF (" in out and "THEN class = positive" in out and "ELSE class = negative" in out
    assert "top-left-square in {x}" in out
    test_f1 = float(re.search(r"^test\s+[\d.]+\s+[\d.]+\s+([\d.]+)", out, re.M).group(1))
    assert test_f1 >= 0.95
    assert re.search(r"solver highs .*status optimal", out)


def test_params_and_solver_are_passed(capsys):
    code = main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", "--solver", "scip",
                 "--param", "max_rules=2", "--param", 'candidates={"max_len": 3}'])
    assert code == 0
    out = capsys.readouterr().out
    assert re.search(r"^rules 2,", out, re.M)
    assert "solver scip" in out


def test_bad_parameter_is_a_clear_error(capsys):
    assert main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", "--param", "alpah=1"]) == 2
    assert "unknown parameter(s) ['alpah']" in capsys.readouterr().err


def test_unknown_dataset_is_rejected(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--dataset", "nope", "--method", "setcover"])
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_fit_takes_a_time_limit_and_prints_the_exact_part(capsys):
    assert main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", "--time-limit", "30"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^exact part: status \w+ \(\w+\), objective ", out, re.M)  # whatever 30 s reach here
    assert re.search(r"^seconds: [\d.]+ in the exact part \(time limit 30\); build [\d.]+", out, re.M)
    with pytest.raises(SystemExit) as stop:  # argparse's own exit for a bad argument
        main(["fit", "--dataset", "tic_tac_toe", "--method", "setcover", "--time-limit", "-1"])
    assert stop.value.code == 2
    assert "the time limit must be a positive number of seconds, got '-1'" in capsys.readouterr().err
