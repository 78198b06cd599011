"""Candidate mining: coverage is exact, support and length limits hold, nothing frequent is missed."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import optrules
from optrules.candidates import mine_candidates
from optrules.cover import CoverInstance
from optrules.data import binarize_target, validate_features, validate_target
from optrules.learners.selection import greedy_cover
from optrules.ruleset import Rule, Ruleset


def _prepare(X, y, positive=None):
    frame, schema = validate_features(X)
    target = binarize_target(validate_target(y, len(frame)), positive)
    return frame, schema, target


def _as_ruleset(candidates, schema, target):
    rules = [Rule(c, target.positive) for c in candidates.conjunctions]
    return Ruleset("set", rules, target.negative, schema.features, target.classes, positive=target.positive)


@st.composite
def mixed_data(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    n = draw(st.integers(20, 80))
    X = pd.DataFrame({
        "a": pd.Categorical(rng.choice(["p", "q", "r"], n)),
        "b": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n).round(1)),
        "c": pd.Categorical(rng.choice(["u", "v"], n)),
        "d": rng.integers(0, 5, n).astype(float),
    })
    y = np.where(rng.random(n) < 0.4, "yes", "no")
    if len(set(y)) < 2:
        y[0], y[1] = "yes", "no"
    return X, y


@settings(derandomize=True, max_examples=40, deadline=None)
@given(mixed_data(), st.integers(1, 3), st.sampled_from([0.0, 0.1, 0.3]))
def test_coverage_matches_ruleset_and_limits_hold(data, max_len, min_support):
    X, y = data
    frame, schema, target = _prepare(X, y, "yes")
    candidates = mine_candidates(frame, schema, target.is_positive, max_len=max_len,
                                 min_support=min_support, max_candidates=10_000,
                                 discretization="equal_frequency", discretization_params={"n_bins": 3})
    ruleset = _as_ruleset(candidates, schema, target)
    # the mined coverage is exactly what the Ruleset evaluates on the original data
    assert (ruleset.covers(X) == candidates.coverage).all()
    n_pos, n_neg = target.is_positive.sum(), (~target.is_positive).sum()
    pos = candidates.coverage[target.is_positive].sum(axis=0)
    neg = candidates.coverage[~target.is_positive].sum(axis=0)
    assert (pos >= max(1, np.ceil(min_support * n_pos))).all()
    assert (pos / n_pos > neg / max(n_neg, 1)).all()
    assert (candidates.n_atoms <= max_len).all()
    for conjunction in candidates.conjunctions:  # one condition per feature
        assert len({c.feature for c in conjunction}) == len(conjunction)
    # no two candidates cover the same samples
    assert len({col.tobytes() for col in candidates.coverage.T}) == len(candidates)


def test_level_wise_search_is_complete_against_enumeration():
    X, y = optrules.load("monk1")
    frame, schema, target = _prepare(X, y, "1")
    candidates = mine_candidates(frame, schema, target.is_positive, max_len=2, min_support=0.05,
                                 max_candidates=100_000)
    mined = {col.tobytes() for col in candidates.coverage.T}
    # enumerate every pair of category tests on distinct features by brute force
    n_pos = target.is_positive.sum()
    n_neg = (~target.is_positive).sum()
    atoms = [(f, v) for f in schema.features for v in frame[f].dropna().unique()]
    for (f1, v1), (f2, v2) in itertools.combinations(atoms, 2):
        if f1 == f2:
            continue
        cover = ((frame[f1] == v1) & (frame[f2] == v2)).to_numpy()
        p, n = cover[target.is_positive].sum(), cover[~target.is_positive].sum()
        if p >= np.ceil(0.05 * n_pos) and p / n_pos > n / n_neg:
            assert cover.tobytes() in mined, (f1, v1, f2, v2)


def test_ranking_and_cap():
    X, y = optrules.load("tic_tac_toe")
    frame, schema, target = _prepare(X, y, "positive")
    few = mine_candidates(frame, schema, target.is_positive, max_len=3, max_candidates=20)
    assert len(few) == 20
    pos = few.coverage[target.is_positive].mean(axis=0)
    neg = few.coverage[~target.is_positive].mean(axis=0)
    exclusiveness = pos / (pos + neg)
    assert (np.diff(exclusiveness) <= 1e-12).all()  # ranked by exclusiveness first


def _enumerated_candidates(frame, schema, is_positive, max_len, min_support, max_candidates,
                           ranking="exclusiveness", alpha=0.5):
    """The candidate list by brute force from the module docstring: every conjunction of atoms on
    distinct features, kept if frequent and locally more positive, ranked (exclusiveness, positive
    support, fewer atoms, then mining order: length, then atoms), the first of each coverage, capped.
    ``ranking="gain"``: first the conjunctions whose gain alpha * P - (1 - alpha) * N exceeds that of
    every subset one atom shorter, by gain, fewer atoms, mining order; then the others as above."""
    from optrules.candidates import DEFAULT_MAX_INTERVALS, _atoms

    conditions, feature_of, cover = _atoms(frame, schema, is_positive, None, "chimerge",
                                           {"max_intervals": DEFAULT_MAX_INTERVALS})
    n_pos, n_neg = is_positive.sum(), (~is_positive).sum()
    min_count = max(1, np.ceil(min_support * n_pos))
    found, gain = [], {}
    for length in range(1, max_len + 1):
        for atoms in itertools.combinations(range(len(conditions)), length):
            if len(set(feature_of[list(atoms)])) < length:
                continue
            covered = cover[:, list(atoms)].all(axis=1)
            pos, neg = int(covered[is_positive].sum()), int(covered[~is_positive].sum())
            if pos >= min_count:
                gain[atoms] = alpha * pos - (1 - alpha) * neg
            if pos >= min_count and pos / n_pos > neg / max(n_neg, 1):
                lsup_pos, lsup_neg = pos / n_pos, neg / (n_neg or 1)
                found.append((-lsup_pos / (lsup_pos + lsup_neg), -pos, length, atoms, covered))
    if ranking == "gain":
        def improving(atoms):
            return all(gain[atoms] > gain[shorter] for shorter in itertools.combinations(atoms, len(atoms) - 1)
                       if shorter)
        found = [(not improving(atoms), -gain[atoms] if improving(atoms) else excl, 0 if improving(atoms) else minus_pos,
                  length, atoms, covered) for excl, minus_pos, length, atoms, covered in found]
        found.sort(key=lambda entry: entry[:5])
        found = [entry[1:] for entry in found]
    else:
        found.sort(key=lambda entry: entry[:4])
    seen, kept = set(), []
    for *_, atoms, covered in found:
        if covered.tobytes() not in seen:
            seen.add(covered.tobytes())
            kept.append((tuple(conditions[a] for a in atoms), covered))
    return kept[:max_candidates]


@settings(derandomize=True, max_examples=40, deadline=None)
@given(mixed_data(), st.integers(1, 3), st.sampled_from([0.0, 0.1]), st.sampled_from([3, 25, 10_000]))
def test_candidate_list_is_the_enumerated_one_in_order(data, max_len, min_support, max_candidates):
    """The level-wise bitset mining (supports by popcount, duplicates by hashing a prefix of the
    ranking) returns exactly the brute-force list: same conjunctions, same order, same coverage."""
    X, y = data
    frame, schema, target = _prepare(X, y, "yes")
    mined = mine_candidates(frame, schema, target.is_positive, max_len=max_len, min_support=min_support,
                            max_candidates=max_candidates)
    expected = _enumerated_candidates(frame, schema, target.is_positive, max_len, min_support, max_candidates)
    assert mined.conjunctions == tuple(conjunction for conjunction, _ in expected)
    assert len(expected) == 0 or (mined.coverage == np.column_stack([c for _, c in expected])).all()


@settings(derandomize=True, max_examples=40, deadline=None)
@given(mixed_data(), st.integers(1, 4), st.sampled_from([0.0, 0.1]), st.sampled_from([3, 25, 10_000]),
       st.sampled_from([0.5, 0.8]))
def test_gain_ranking_is_the_enumerated_one_in_order(data, max_len, min_support, max_candidates, alpha):
    """ranking="gain": the improving conjunctions (gain above every generalisation's, found by the
    level-wise lookup of the subsets one atom shorter) by gain, then the rest by exclusiveness,
    exactly as enumerating every conjunction and every subset says."""
    X, y = data
    frame, schema, target = _prepare(X, y, "yes")
    mined = mine_candidates(frame, schema, target.is_positive, max_len=max_len, min_support=min_support,
                            max_candidates=max_candidates, ranking="gain", alpha=alpha)
    expected = _enumerated_candidates(frame, schema, target.is_positive, max_len, min_support, max_candidates,
                                      ranking="gain", alpha=alpha)
    assert mined.conjunctions == tuple(conjunction for conjunction, _ in expected)
    assert len(expected) == 0 or (mined.coverage == np.column_stack([c for _, c in expected])).all()


def test_gain_ranking_keeps_the_hidden_rule_within_a_small_budget():
    """On a noisy hidden DNF the most exclusive conjunctions are narrow pieces of its terms; ranked
    by gain, the terms themselves lead the list, and the greedy cover of 50 candidates is the DNF."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((4000, 6)), columns=[f"x{j}" for j in range(6)])
    label = ((X.x0 > 0.5) & (X.x1 > 0.5)) | (X.x2 > 0.8)
    y = np.where(label ^ (rng.random(len(X)) < 0.05), "yes", "no")
    frame, schema, target = _prepare(X, y, "yes")

    def cover(ranking):
        candidates = mine_candidates(frame, schema, target.is_positive, max_candidates=50, ranking=ranking)
        instance = CoverInstance.from_samples(candidates.coverage, target.is_positive, 0.5, np.ones(len(candidates)))
        return [candidates.conjunctions[j] for j in greedy_cover(instance, size=candidates.n_atoms)]

    by_gain = cover("gain")
    assert sorted(tuple(c.feature for c in conjunction) for conjunction in by_gain) == [("x0", "x1"), ("x2",)]
    assert len(cover("exclusiveness")) > 5  # pieces of the terms


@pytest.mark.parametrize("params, message", [
    ({"max_len": 0}, "max_len must be at least 1"),
    ({"min_support": 1.5}, "min_support must lie in"),
    ({"max_candidates": 0}, "max_candidates must be at least 1"),
    ({"ranking": "support"}, r"ranking must be one of \['exclusiveness', 'gain'\], got 'support'"),
    ({"ranking": "gain", "alpha": 1.5}, r"alpha must lie in \[0, 1\], got 1.5"),
])
def test_parameter_errors(params, message):
    X, y = optrules.load("monk1")
    frame, schema, target = _prepare(X, y, "1")
    with pytest.raises(ValueError, match=message):
        mine_candidates(frame, schema, target.is_positive, **params)


def test_a_hash_collision_falls_back_to_comparing_the_coverages(monkeypatch):
    """Coverage duplicates are found by two hashes; when the first collides and the second does not,
    the rows are compared. Forced here: every first hash equal, so nothing may be merged by it."""
    import optrules.candidates as candidates

    X, y = optrules.load("german")
    frame, schema, target = _prepare(X, y, "bad")
    reference = mine_candidates(frame, schema, target.is_positive, max_len=2)

    def colliding(hashes):
        def wrapped(*args):
            out = hashes(*args).copy()
            out[:, 0] = 7  # the first hash says "all equal"; the second still tells them apart
            return out
        return wrapped

    monkeypatch.setattr(candidates, "row_hashes", colliding(candidates.row_hashes))
    monkeypatch.setattr(candidates, "joined_hashes", colliding(candidates.joined_hashes))
    forced = mine_candidates(frame, schema, target.is_positive, max_len=2)
    assert forced.conjunctions == reference.conjunctions and (forced.coverage == reference.coverage).all()
    assert len(reference) > 100  # enough distinct coverages that merging by the first hash would show


# --------------------------------------------------------------------------- #
# sample weights
# --------------------------------------------------------------------------- #
def _texts(candidates):
    return [tuple(str(c) for c in conjunction) for conjunction in candidates.conjunctions]


@settings(derandomize=True, max_examples=40, deadline=None)
@given(mixed_data(), st.integers(1, 3), st.sampled_from([0.0, 0.1, 0.3]),
       st.sampled_from(["chimerge", "equal_frequency"]), st.integers(0, 2**31 - 1),
       st.sampled_from(["exclusiveness", "gain"]))
def test_integer_weights_mine_like_duplicated_rows(data, max_len, min_support, discretization, seed, ranking):
    X, y = data
    weights = np.random.default_rng(seed).integers(0, 4, len(y))
    weights[[np.flatnonzero(y == "yes")[0], np.flatnonzero(y == "no")[0]]] = 1  # both classes weigh
    copies = np.repeat(np.arange(len(y)), weights)
    options = dict(max_len=max_len, min_support=min_support, max_candidates=10_000, discretization=discretization,
                   discretization_params={"n_bins": 3} if discretization == "equal_frequency" else None,
                   ranking=ranking)
    frame, schema, target = _prepare(X, y, "yes")
    weighted = mine_candidates(frame, schema, target.is_positive, weights=weights.astype(float), **options)
    frame_d, schema_d, target_d = _prepare(X.iloc[copies].reset_index(drop=True), y[copies], "yes")
    duplicated = mine_candidates(frame_d, schema_d, target_d.is_positive, **options)
    assert _texts(weighted) == _texts(duplicated) and weighted.n_mined == duplicated.n_mined
    assert (weighted.coverage[copies] == duplicated.coverage).all()
    positive_weight = np.where(target.is_positive, weights, 0)
    assert (positive_weight @ weighted.coverage == duplicated.coverage[target_d.is_positive].sum(axis=0)).all()
    # the rows of weight 0 are covered as the conjunctions say, though they took no part
    assert (_as_ruleset(weighted, schema, target).covers(X) == weighted.coverage).all()


@pytest.mark.parametrize("name, positive", [("tic_tac_toe", "positive"), ("german", "bad"), ("monk1", "1")])
def test_unit_weights_mine_exactly_the_unweighted_candidates(name, positive):
    X, y = optrules.load(name)
    frame, schema, target = _prepare(X, y, positive)
    plain = mine_candidates(frame, schema, target.is_positive, max_len=3)
    ones = mine_candidates(frame, schema, target.is_positive, max_len=3, weights=np.ones(len(frame)))
    assert ones.conjunctions == plain.conjunctions and ones.n_mined == plain.n_mined
    assert (ones.coverage == plain.coverage).all()


def test_a_row_of_weight_zero_acts_as_removed():
    X = pd.DataFrame({"a": ["p", "p", "q", "q", "q", "r", "r"], "b": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]})
    y = np.array(["yes", "yes", "yes", "no", "no", "no", "yes"])
    weights = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0])  # the only positive "r" weighs nothing
    frame, schema, target = _prepare(X, y, "yes")
    weighted = mine_candidates(frame, schema, target.is_positive, max_len=2, min_support=0.0, weights=weights,
                               discretization="equal_frequency", discretization_params={"n_bins": 3})
    frame_r, schema_r, target_r = _prepare(X.iloc[:6], y[:6], "yes")
    removed = mine_candidates(frame_r, schema_r, target_r.is_positive, max_len=2, min_support=0.0,
                              discretization="equal_frequency", discretization_params={"n_bins": 3})
    assert _texts(weighted) == _texts(removed)
    assert (weighted.coverage[:6] == removed.coverage).all()
    assert not any("r" in text for conjunction in _texts(weighted) for text in conjunction)


@settings(derandomize=True, max_examples=30, deadline=None)
@given(mixed_data(), st.integers(1, 3), st.sampled_from([0.0, 0.1, 0.3]), st.integers(0, 2**31 - 1))
def test_fractional_weights_bound_supports_and_rank_by_weighted_exclusiveness(data, max_len, min_support, seed):
    X, y = data
    frame, schema, target = _prepare(X, y, "yes")
    weights = np.random.default_rng(seed).random(len(y)) * 3
    weights[np.random.default_rng(seed).random(len(y)) < 0.2] = 0.0
    weights[[np.flatnonzero(y == "yes")[0], np.flatnonzero(y == "no")[0]]] = 0.5
    candidates = mine_candidates(frame, schema, target.is_positive, max_len=max_len, min_support=min_support,
                                 max_candidates=10_000, weights=weights)
    assert (_as_ruleset(candidates, schema, target).covers(X) == candidates.coverage).all()
    pos = np.where(target.is_positive, weights, 0.0) @ candidates.coverage
    neg = np.where(target.is_positive, 0.0, weights) @ candidates.coverage
    total_pos, total_neg = weights[target.is_positive].sum(), weights[~target.is_positive].sum()
    assert (pos > 0).all() and (pos >= min_support * total_pos - 1e-9).all()
    lsup_pos, lsup_neg = pos / total_pos, neg / total_neg
    assert (lsup_pos > lsup_neg - 1e-12).all()
    exclusiveness = lsup_pos / (lsup_pos + lsup_neg)
    assert (np.diff(exclusiveness) <= 1e-9).all()
    # distinct on the rows that weigh: two candidates differing only on rows of weight 0 are one
    live = weights > 0
    assert len({col.tobytes() for col in candidates.coverage[live].T}) == len(candidates)


def test_generalisations_are_found_by_table_and_by_binary_search_alike():
    """The lookup of a conjunction one atom shorter: by a table indexed by key when the key space is
    small against the queries, by binary search otherwise; both give every key's position."""
    from optrules.candidates import _key_index

    rng = np.random.default_rng(0)
    keys = np.unique(rng.integers(0, 1 << 20, 5000))
    queries = rng.choice(keys, 20_000)
    by_table, by_search = _key_index(keys, 1 << 20, 1 << 20), _key_index(keys, 1 << 40, 10)
    assert (keys[by_table(queries)] == queries).all() and (by_search(queries) == by_table(queries)).all()
