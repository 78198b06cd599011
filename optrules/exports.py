"""A Ruleset written for other systems and drawn for people: a pandas query, an SQL expression, and a
scorecard as a table and a plot (its table of rules and its per-row explanations are the Ruleset's
own methods, ``to_frame`` and ``explain``).

Every form evaluates exactly as :meth:`Ruleset.covers` / :meth:`Ruleset.predict` do, missing values
included (the tests check each against them on random data with missing values and mixed types):

* :func:`query` (``Ruleset.to_query``): a :meth:`pandas.DataFrame.query` / ``eval`` string of one
  rule's antecedent, or of "some rule fires". Column names are backquoted; a missing value fails a
  comparison (``x >= 3``, ``x in [...]``), satisfies ``not in`` (so ``x.notna()`` is added where the
  condition excludes missing values) and is tested with ``isna()`` where a condition admits it.
  ``isna`` / ``notna`` are method calls, which pandas' ``"python"`` engine evaluates (the default
  when numexpr is not installed; pass ``engine="python"`` otherwise).
* :func:`sql` (``Ruleset.to_sql``): an SQL ``CASE WHEN ... END`` giving each row's predicted class,
  for a table whose columns hold the feature values (SQL ``NULL`` for missing ones). SQL's ``NULL``
  makes every comparison unknown, which ``CASE`` reads as false, so ``IS NULL`` is added where a
  condition admits missing values and ``IS NOT NULL`` where ``NOT IN`` must exclude them; a ``CASE``
  takes its first true branch, which is a decision list's order. Identifiers are double-quoted, text
  is single-quoted (quotes doubled), numbers are written exactly (``repr`` of the float).
* :func:`scorecard_frame` / :func:`plot_scorecard`: a scorecard (kind ``"score"``) as a table of its
  terms (feature, the categories of each cluster or the linear term, score) and as a bar chart.

Conditions are told apart by their ``kind`` ("numeric", "categorical"), so that this module imports
nothing of :mod:`optrules.ruleset`, whose methods call it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # the Ruleset's own methods call this module: it imports nothing of ruleset.py at run time
    from optrules.ruleset import Condition, Rule, Ruleset

__all__ = ["condition_query", "condition_sql", "plot_scorecard", "query", "scorecard_frame", "sql"]


# --------------------------------------------------------------------------- conditions as text
def _column(feature: str) -> str:
    if "`" in feature:
        raise ValueError(f"feature {feature!r} contains a backquote, which a pandas query cannot name")
    return f"`{feature}`"


def _identifier(feature: str) -> str:
    return '"' + feature.replace('"', '""') + '"'


def _python_literal(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, (int, np.integer)):
        return repr(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, str):
        return repr(value)
    raise ValueError(f"category {value!r} of type {type(value).__name__} cannot be written in a query")


def _sql_literal(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"the value {value!r} has no SQL literal")
        return repr(float(value))
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise ValueError(f"value {value!r} of type {type(value).__name__} cannot be written in SQL")


@dataclass(frozen=True)
class _Syntax:
    """How a language writes the pieces of a condition (``{0}``: the column, ``{1}``: the values).
    ``member`` / ``non_member`` must be false on a missing value; ``infinite_values``: whether the
    data can hold infinite values (SQL columns cannot); ``number``: a numeric column's value as
    compared and scored, as a float64 (predict reads a whole number above 2**53 as the nearest float,
    which an SQL ``INTEGER`` compared exactly with a threshold is not)."""

    name: Callable[[str], str]
    literal: Callable[[Any], str]
    conjunction: str
    disjunction: str
    is_missing: str
    is_present: str
    member: str
    non_member: str
    never: str
    infinite_values: bool
    number: str


_PANDAS = _Syntax(_column, _python_literal, " & ", " | ", "{0}.isna()", "{0}.notna()", "{0} in [{1}]",
                  "({0} not in [{1}] & {0}.notna())",  # pandas' "not in" holds on a missing value
                  "({0}.isna() & {0}.notna())", True, "{0}")
_ALWAYS = "({0}.isna() | {0}.notna())"  #: pandas: true on every row, missing or not
_SQL = _Syntax(_identifier, _sql_literal, " AND ", " OR ", "{0} IS NULL", "{0} IS NOT NULL", "{0} IN ({1})",
               "{0} NOT IN ({1})",  # unknown on NULL, which CASE reads as false
               "FALSE", False, "CAST({0} AS DOUBLE PRECISION)")  # REAL is 4 bytes in PostgreSQL


def _present_part(condition: Condition, column: str, syntax: _Syntax) -> str | None:
    """The condition on present values, false on a missing one; None when no present value holds."""
    if condition.kind == "numeric":
        pieces = []
        for interval in condition.intervals:
            if not syntax.infinite_values and (interval.low == math.inf or interval.high == -math.inf):
                continue  # holds at most an infinite value
            comparisons, value = [], syntax.number.format(column)
            if interval.low != -math.inf:
                comparisons.append(f"{value} {'>=' if interval.low_closed else '>'} {float(interval.low)!r}")
            if interval.high != math.inf:
                comparisons.append(f"{value} {'<=' if interval.high_closed else '<'} {float(interval.high)!r}")
            pieces.append(f"({syntax.conjunction.join(comparisons) or syntax.is_present.format(column)})")
        return syntax.disjunction.join(pieces) or None
    if condition.kind != "categorical":
        raise TypeError(f"unknown condition {condition!r}")
    present = [c for c in condition.categories if c is not None]  # None stands for no present value
    values = ", ".join(syntax.literal(c) for c in present)
    if condition.negated:
        return syntax.non_member.format(column, values) if present else syntax.is_present.format(column)
    return syntax.member.format(column, values) if present else None


def _condition_text(condition: Condition, syntax: _Syntax) -> str:
    """One condition: its present part, or a missing value where the condition admits it."""
    column = syntax.name(condition.feature)
    present = _present_part(condition, column, syntax)
    if not condition.missing:
        return f"({present or syntax.never.format(column)})"
    missing = syntax.is_missing.format(column)
    return f"({present}{syntax.disjunction}{missing})" if present else f"({missing})"


def condition_query(condition: Condition) -> str:
    """The pandas expression of one condition (see the module docstring)."""
    return _condition_text(condition, _PANDAS)


def condition_sql(condition: Condition) -> str:
    """The SQL truth of one condition (see the module docstring)."""
    return _condition_text(condition, _SQL)


# --------------------------------------------------------------------------- pandas query
_PANDAS_CONSTANTS = frozenset({"inf", "Inf"})  #: names a pandas query reads as numbers even back-quoted

def query(ruleset: Ruleset, rule: int | None = None) -> str:
    """The query of rule ``rule``'s antecedent (a position in ``rules``), or with None of "some rule
    fires" (a ``"set"``: the rows it predicts positive). A rule without conditions holds on every
    row and no rule at all on none, written on the first feature (``(`f`.isna() | `f`.notna())``
    and its negation): a query must give one truth per row, and ``index == index`` was false on a
    row whose index, or a column named ``index``, is missing."""
    first = _PANDAS.name(ruleset.features[0])
    rules = ruleset.rules if rule is None else (_rule_at(ruleset, rule),)
    on_first = not rules or not all(r.conditions for r in rules)  # "no rule" and "every row" name the first feature
    named = {c.feature for r in rules for c in r.conditions} | ({ruleset.features[0]} if on_first else set())
    _check_query_names(named, ruleset.features)
    if rule is not None:
        return _rule_query(rules[0], first)
    if not ruleset.rules:
        return _PANDAS.never.format(first)
    return " | ".join(f"({_rule_query(r, first)})" for r in ruleset.rules)


def _check_query_names(used: set[str], features: Sequence[str]) -> None:
    """Refuse a query that pandas would read against another column: pandas turns a back-quoted name
    into an identifier (``size (cm)`` and ``size_(cm)`` both into ``BACKTICK_QUOTED_STRING_size__LPAR_cm_RPAR_``)
    and reads `` `inf` `` as the number infinity."""
    from pandas.core.computation.parsing import clean_column_name  # the identifier pandas makes of `name`

    constants = sorted(name for name in used if name in _PANDAS_CONSTANTS)
    if constants:
        raise ValueError(f"a pandas query reads the feature name(s) {constants} as the number infinity, not as "
                         f"a column; rename the column(s), or use Ruleset.covers / predict")
    identifiers: dict[str, list[str]] = {}
    for feature in features:
        identifiers.setdefault(clean_column_name(feature), []).append(feature)
    alike = sorted({tuple(names) for names in identifiers.values() if len(names) > 1 and used & set(names)})
    if alike:
        raise ValueError(f"a pandas query cannot tell apart the features {[list(a) for a in alike]}: pandas "
                         f"makes the same identifier of their names; rename one, or use Ruleset.covers / predict")


def _rule_at(ruleset: Ruleset, rule: int) -> Rule:
    if not isinstance(rule, (int, np.integer)) or isinstance(rule, bool) or not 0 <= rule < len(ruleset.rules):
        raise ValueError(f"rule must be the position of a rule, 0 to {len(ruleset.rules) - 1}, got {rule!r}")
    return ruleset.rules[int(rule)]


def _rule_query(rule: Rule, first: str) -> str:
    """A rule's antecedent; without conditions, true on every row (``first``: a column of X, quoted)."""
    return " & ".join(condition_query(c) for c in rule.conditions) if rule.conditions else _ALWAYS.format(first)


# --------------------------------------------------------------------------- SQL
def _rule_sql(rule: Rule) -> str:
    return " AND ".join(condition_sql(c) for c in rule.conditions) if rule.conditions else "TRUE"


def sql(ruleset: Ruleset) -> str:
    """An SQL expression of each row's predicted class (see the module docstring)."""
    default = _sql_literal(ruleset.default)
    if ruleset.kind == "score":
        terms = [repr(float(ruleset.intercept))]
        terms += [f"CASE WHEN {_rule_sql(r)} THEN {float(r.weight)!r} ELSE 0 END" for r in ruleset.rules]
        terms += [f"COALESCE({float(t.coefficient)!r} * ({_SQL.number.format(_identifier(t.feature))} - "
                  f"{float(t.center)!r}) / {float(t.scale)!r}, 0)" for t in ruleset.linear]
        score = "\n    + ".join(terms)
        return f"CASE WHEN (\n    {score}\n) > 0 THEN {_sql_literal(ruleset.positive)} ELSE {default} END"
    if not ruleset.rules:
        return default
    if ruleset.kind == "set":
        fires = "\n  OR ".join(f"({_rule_sql(r)})" for r in ruleset.rules)
        return f"CASE WHEN {fires}\n  THEN {_sql_literal(ruleset.positive)} ELSE {default} END"
    branches = "\n".join(f"  WHEN {_rule_sql(r)} THEN {_sql_literal(r.prediction)}" for r in ruleset.rules)
    return f"CASE\n{branches}\n  ELSE {default}\nEND"


# --------------------------------------------------------------------------- scorecards
def scorecard_frame(ruleset: Ruleset) -> pd.DataFrame:
    """A scorecard's terms, one row each: ``feature``, ``term`` (the categories of a cluster, e.g.
    ``{a, b}``, ``missing``, the condition's text for any other rule, or ``linear: per s above c``),
    ``score`` (the rule's weight, or the linear coefficient per scale unit), and the intercept as
    a last row."""
    if ruleset.kind != "score":
        raise ValueError(f"a scorecard table is defined for 'score' rulesets, not {ruleset.kind!r}")
    rows = []
    for rule in ruleset.rules:
        if len(rule.conditions) == 1 and rule.conditions[0].kind == "categorical":
            condition = rule.conditions[0]
            if condition.negated:  # "not {a}, or missing": a missing value is scored when it is admitted
                term = "not {" + condition.categories_text() + "}" + (", or missing" if condition.missing else "")
            else:
                names = [condition.categories_text()] * bool(condition.categories) + ["missing"] * condition.missing
                term = "{" + ", ".join(names) + "}"
            rows.append((condition.feature, term, rule.weight))
        else:
            rows.append((", ".join(rule.features), rule.antecedent(), rule.weight))
    for t in ruleset.linear:
        rows.append((t.feature, f"linear: per {t.scale:.4g} above {t.center:.4g}", t.coefficient))
    rows.append(("(intercept)", "", ruleset.intercept))
    return pd.DataFrame(rows, columns=["feature", "term", "score"])


def plot_scorecard(ruleset: Ruleset) -> Any:
    """A horizontal bar per scorecard term (grouped by feature, intercept last), positive scores
    pushing towards the positive class; a matplotlib Figure (``pip install "optrules[plots]"``)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'optrules[plots]'") from None
    table = scorecard_frame(ruleset)
    labels = [f"{f}: {t}" if t else f for f, t in zip(table["feature"], table["term"])]
    figure = Figure(figsize=(8, 0.35 * len(table) + 1.2), layout="constrained")
    ax = figure.subplots()
    positions = np.arange(len(table))[::-1]
    colours = ["tab:blue" if s > 0 else "tab:red" for s in table["score"]]
    ax.barh(positions, table["score"], color=colours)
    ax.set_yticks(positions, labels, fontsize="small")
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"score (a total above 0 predicts {ruleset.positive})")
    ax.grid(axis="x", alpha=0.3)
    figure.suptitle("Scorecard")
    return figure
