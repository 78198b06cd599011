"""LIBRE against the paper's UCI results (Mita et al., Section 4 protocol, Appendix E Tables 7-9).

Protocol (Section 4): outer stratified 5-fold CV (``StratifiedKFold(5, shuffle=True, random_state=0)``);
positive class = ``y.attrs["positive"]``; the grid is E (``n_estimators``) in {5, 20, 50} x
heuristic in {H1, H2} x ChiMerge threshold in {6, 4.6, 4} x alpha in {.5, .7, .9}, with 5 features
per weak learner; ``--max-features 2 3 5`` and ``--max-intervals none 3`` add two dimensions of our
own ("each weak learner uses up to 5 features"; ChiMerge's maximum number of intervals).

Alpha: with ``conflicts="strict"`` (the default) a LIBRE weak learner's points cover no training
negative, so every candidate's greedy weight is ``alpha * (positives it still covers)``: alpha scales
all weights by the same factor and cannot change the greedy choice, and the grid is collapsed to
alpha = 0.7 (18 configurations). The script checks the premise on every fit and once per dataset
that alpha .5 and .9 give the same rules as .7. With ``--conflicts majority`` alpha decides which
class a shared binned row goes to, so the full alpha grid is searched (54 configurations).

Number of rules: the greedy cover only stops when the positives run out (the candidates cover no
negative, so no weight ever turns non-positive), hence ``max_rules`` joins the grid. Each
configuration is fitted once with ``max_rules=None``; the greedy rules are in selection order, so
the model ``max_rules=k`` is the prefix of the first k rules (predict positive iff one of them
fires). All prefixes are scored from one ``covers`` matrix. The claim is checked on every outer
fold: the refit with ``max_rules=k`` must predict exactly as the k-prefix of the full fit.

Selection (training fold only): inner ``StratifiedKFold(--inner-folds, shuffle=True, random_state=0)``
(default 3); mean inner F1 per (configuration, k); one-standard-error rule: among the (configuration,
k) whose mean F1 is at least best mean - SE(best) (SE = sample std / sqrt(folds) of the best's inner
F1s; ``--tolerance 0.01`` uses a fixed F1 difference instead), the smallest
k, then the highest mean inner F1, then the smallest E, then grid order (H1 before H2, threshold
6, 4.6, 4) -- the number of pairs still tied after k and F1 is reported. Then refit on the whole
outer training fold with the chosen configuration and ``max_rules=k``; score on the outer test
fold. "libre 3": the same with k <= 3.

Adult (48,842 rows) is reduced: one fit on the full outer training fold takes minutes on this
machine (ChiMerge at threshold 6 leaves ~1,600 bits), so its inner CV and final fit use a stratified
subsample of the outer training fold (``--adult-train`` rows) and the test is the full outer test
fold; see the results file for the grid used.

    python benchmarks/libre_paper.py [--quick] [--datasets pima haberman] [--n-jobs 2]
        [--conflicts majority] [--max-features 2 3 5] [--max-intervals none 3] [--inner-folds 5]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedKFold, train_test_split

import optrules
from optrules.learners.libre import LibreClassifier

sys.path.insert(0, str(Path(__file__).parent))
from machine import markdown_table, write_report  # noqa: E402  (benchmarks/machine.py)

MAX_FEATURES = 5
ALPHA = 0.7
ALPHAS = (0.5, 0.7, 0.9)
ESTIMATORS = (5, 20, 50)
HEURISTICS = ("H1", "H2")
THRESHOLDS = (6.0, 4.6, 4.0)
SEED = 0
LIBRE3_MAX = 3

#: The paper's values, Appendix E: F1 from Table 7, #rules from Table 8, atoms per rule from Table 9
#: (columns "libre" and "libre 3"; mean and st. dev.). Pima's libre 3 F1 is printed "..64(.05)".
PAPER = {
    "tic_tac_toe": {"libre": {"f1": (1.00, 0.00), "rules": (9.0, 1.1), "atoms": (3.8, 0.8)},
                    "libre 3": {"f1": (0.68, 0.04), "rules": (3.0, 0.0), "atoms": (3.0, 0.0)}},
    "wisconsin": {"libre": {"f1": (0.95, 0.01), "rules": (4.2, 0.7), "atoms": (3.2, 1.0)},
                  "libre 3": {"f1": (0.93, 0.02), "rules": (3.0, 0.0), "atoms": (2.8, 1.0)}},
    "australian": {"libre": {"f1": (0.84, 0.03), "rules": (2.4, 1.4), "atoms": (4.4, 1.8)},
                   "libre 3": {"f1": (0.84, 0.03), "rules": (2.2, 0.7), "atoms": (4.4, 1.3)}},
    "pima": {"libre": {"f1": (0.64, 0.05), "rules": (1.6, 1.0), "atoms": (2.5, 0.7)},
             "libre 3": {"f1": (0.64, 0.05), "rules": (1.6, 1.0), "atoms": (2.5, 0.7)}},
    "heart_statlog": {"libre": {"f1": (0.77, 0.06), "rules": (10.6, 3.0), "atoms": (7.7, 0.7)},
                      "libre 3": {"f1": (0.75, 0.02), "rules": (2.8, 0.4), "atoms": (6.1, 2.7)}},
    "haberman": {"libre": {"f1": (0.41, 0.04), "rules": (1.6, 0.8), "atoms": (2.1, 0.3)},
                 "libre 3": {"f1": (0.41, 0.04), "rules": (1.6, 0.8), "atoms": (2.1, 0.3)}},
    "adult": {"libre": {"f1": (0.70, 0.01), "rules": (14.0, 2.1), "atoms": (7.8, 1.0)},
              "libre 3": {"f1": (0.62, 0.01), "rules": (3.0, 0.0), "atoms": (6.5, 0.7)}},
}

DATASETS = ["tic_tac_toe", "wisconsin", "australian", "pima", "heart_statlog", "haberman", "adult"]


def log(*args) -> None:
    print(*args, flush=True)


#: LibreClassifier's ``conflicts`` ("strict": the paper's conflict-free learners; "majority"), set by --conflicts.
CONFLICTS = "strict"
#: Near-tie tolerance of the selection: "se" (one standard error of the best) or an F1 difference (--tolerance).
TOLERANCE = "se"
#: Inner cross-validation folds (--inner-folds).
INNER_FOLDS = 3


def make_model(config: tuple, positive, max_rules=None, alpha: float | None = None) -> LibreClassifier:
    n_estimators, heuristic, threshold, config_alpha, max_features, max_intervals = config
    alpha = config_alpha if alpha is None else alpha
    return LibreClassifier(n_estimators=n_estimators, max_features=max_features, heuristic=heuristic,
                           alpha=alpha, chi2_threshold=threshold, max_intervals=max_intervals,
                           max_rules=max_rules, positive=positive, conflicts=CONFLICTS, n_jobs=1,
                           random_state=SEED)


def config_text(config: tuple) -> str:
    n_estimators, heuristic, threshold, alpha, max_features, max_intervals = config
    return (f"E={n_estimators} {heuristic} chi2={threshold:g} alpha={alpha:g} features={max_features} "
            f"intervals={max_intervals or 'any'}")


def f1_of(pred: np.ndarray, truth: np.ndarray) -> float:
    tp = int((pred & truth).sum())
    denom = int(pred.sum()) + int(truth.sum())
    return 2 * tp / denom if denom else 0.0


def prefix_f1(ruleset, X, truth: np.ndarray) -> np.ndarray:
    """F1 of every prefix k = 0..K of the greedy-ordered rules (index k = first k rules)."""
    cover = ruleset.covers(X) if ruleset.n_rules else np.zeros((len(X), 0), bool)
    prefix = np.logical_or.accumulate(cover, axis=1)
    prefix = np.concatenate([np.zeros((len(X), 1), bool), prefix], axis=1)
    tp = (prefix & truth[:, None]).sum(axis=0)
    denom = prefix.sum(axis=0) + truth.sum()
    return np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0)


def inner_task(config, X_tr, y_tr, X_va, y_va, positive, conflicts):
    global CONFLICTS
    CONFLICTS = conflicts  # worker processes do not share the parent's module state
    model = make_model(config, positive).fit(X_tr, y_tr)
    rules = model.ruleset_.rules
    negatives_covered = sum(int(r.n_negative or 0) for r in rules)
    return prefix_f1(model.ruleset_, X_va, np.asarray(y_va == positive)), negatives_covered


def select(configs: list, scores: np.ndarray, k_max: int | None) -> tuple:
    """scores: (configs x inner folds x K+1) F1 of the k-prefixes. Fewest rules among the near-ties
    of the best mean inner F1 (within one standard error, or within TOLERANCE when it is a number)."""
    if k_max is not None:
        scores = scores[:, :, :k_max + 1]
    mean = scores.mean(axis=1)
    mean[:, 0] = -np.inf  # k = 0 (no rule) is not a model
    best = np.unravel_index(np.argmax(mean), mean.shape)
    if TOLERANCE == "se":
        se = scores[best[0], :, best[1]].std(ddof=1) / np.sqrt(scores.shape[1])
    else:
        se = float(TOLERANCE)
    ok = np.argwhere(mean >= mean[best] - se - 1e-12)
    keyed = sorted(((int(k), -mean[c, k], configs[c][0], c) for c, k in ok))
    k, score = keyed[0][0], keyed[0][1]
    ties = sum(1 for key in keyed if key[0] == k and key[1] == score)
    c = keyed[0][3]
    return configs[c], k, float(mean[c, k]), float(mean[best]), float(se), ties


def run_dataset(name: str, configs: list, n_jobs: int, adult_train: int | None) -> dict:
    X, y = optrules.load(name)
    positive = y.attrs["positive"]
    truth_all = np.asarray(y == positive)
    outer = StratifiedKFold(5, shuffle=True, random_state=SEED)
    inner = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=SEED)
    result = {"libre": [], "libre 3": []}
    notes = {"neg_covered": 0, "prefix_checks": 0, "prefix_mismatch": 0, "choices": [], "alpha_same": None}
    started = time.perf_counter()
    for fold, (tr, te) in enumerate(outer.split(X, truth_all)):
        X_tr, y_tr = X.iloc[tr], y.iloc[tr]
        if adult_train is not None and len(tr) > adult_train:
            X_tr, _, y_tr, _ = train_test_split(X_tr, y_tr, train_size=adult_train,
                                                stratify=np.asarray(y_tr == positive), random_state=SEED)
        X_te, y_te = X.iloc[te], y.iloc[te]
        truth_tr = np.asarray(y_tr == positive)
        truth_te = np.asarray(y_te == positive)
        splits = list(inner.split(X_tr, truth_tr))
        tasks = [(c, s) for c in range(len(configs)) for s in range(len(splits))]
        out = Parallel(n_jobs=n_jobs)(
            delayed(inner_task)(configs[c], X_tr.iloc[splits[s][0]], y_tr.iloc[splits[s][0]],
                                X_tr.iloc[splits[s][1]], y_tr.iloc[splits[s][1]], positive, CONFLICTS)
            for c, s in tasks)
        longest = max(2, max(len(f1) for f1, _ in out))  # at least k = 1 (an empty model)
        scores = np.zeros((len(configs), len(splits), longest))
        for (c, s), (f1, neg) in zip(tasks, out):
            scores[c, s, :len(f1)] = f1
            scores[c, s, len(f1):] = f1[-1]  # max_rules beyond K: the same K-rule model
            notes["neg_covered"] += neg
        for label, k_max in (("libre", None), ("libre 3", LIBRE3_MAX)):
            config, k, inner_f1, best_f1, se, ties = select(configs, scores, k_max)
            model = make_model(config, positive, max_rules=k).fit(X_tr, y_tr)
            pred = np.asarray(model.predict(X_te) == positive)
            rs = model.ruleset_
            notes["neg_covered"] += sum(int(r.n_negative or 0) for r in rs.rules)
            # the prefix claim: max_rules=k predicts as the first k rules of the max_rules=None fit
            full = make_model(config, positive).fit(X_tr, y_tr).ruleset_
            cover = full.covers(X_te)[:, :k] if full.n_rules else np.zeros((len(te), 0), bool)
            notes["prefix_checks"] += 1
            notes["prefix_mismatch"] += int(not np.array_equal(cover.any(axis=1), pred))
            result[label].append({"f1": f1_of(pred, truth_te), "rules": rs.n_rules, "atoms": rs.avg_atoms})
            notes["choices"].append(f"{label} fold {fold}: {config_text(config)} "
                                    f"k={k} (inner F1 {inner_f1:.3f}, best {best_f1:.3f}, SE {se:.3f}, "
                                    f"tied {ties})")
            log(f"  {name} fold {fold} {label}: {config_text(config)} k={k} "
                f"rules={rs.n_rules} F1={result[label][-1]['f1']:.3f} inner={inner_f1:.3f} "
                f"[{time.perf_counter() - started:.0f}s]")
        if fold == 0:  # the alpha premise, once per dataset: same rules for alpha .5, .7, .9
            config = configs[len(configs) // 2]
            rulesets = [str(make_model(config, positive, alpha=a).fit(X_tr, y_tr).ruleset_.rules)
                        for a in (0.5, 0.7, 0.9)]
            notes["alpha_same"] = len(set(rulesets)) == 1
    notes["seconds"] = time.perf_counter() - started
    return {"result": result, "notes": notes}


def summarize(name: str, label: str, folds: list, adult_note: str) -> dict:
    f1 = np.array([f["f1"] for f in folds])
    rules = np.array([f["rules"] for f in folds], dtype=float)
    atoms = np.array([f["atoms"] for f in folds])
    paper = PAPER[name][label]
    f1_ok = f1.mean() >= paper["f1"][0] - 0.03
    rules_ok = rules.mean() <= max(1.5 * paper["rules"][0], paper["rules"][0] + 3)
    verdict = "pass" if f1_ok and rules_ok else "FAIL (" + ", ".join(
        w for w, ok in (("F1", f1_ok), ("#rules", rules_ok)) if not ok) + ")"
    return {"dataset": name + adult_note, "method": label,
            "F1": f"{f1.mean():.3f} ({f1.std(ddof=1):.3f})",
            "paper F1": f"{paper['f1'][0]:.2f} ({paper['f1'][1]:.2f})",
            "#rules": f"{rules.mean():.1f} ({rules.std(ddof=1):.1f})",
            "paper #rules": f"{paper['rules'][0]:.1f} ({paper['rules'][1]:.1f})",
            "atoms/rule": f"{atoms.mean():.2f}",
            "paper atoms": f"{paper['atoms'][0]:.1f}",
            "acceptance": verdict}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 datasets, smaller grid (a smoke run)")
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--adult-train", type=int, default=4000,
                        help="stratified subsample of adult's outer training fold (inner CV and refit)")
    parser.add_argument("--adult-estimators", type=int, nargs="+", default=[5, 20],
                        help="E values tried on adult (reduced grid)")
    parser.add_argument("--conflicts", choices=["strict", "majority"], default="strict",
                        help="LibreClassifier(conflicts=...) for every fit")
    parser.add_argument("--max-features", type=int, nargs="+", default=[MAX_FEATURES],
                        help="features per weak learner tried ('each weak learner uses up to 5 features')")
    parser.add_argument("--max-intervals", nargs="+", default=["none"],
                        help="ChiMerge max_intervals tried ('none' = threshold only, the paper)")
    parser.add_argument("--tolerance", default="se",
                        help="near-ties of the best inner F1: 'se' (one standard error) or an F1 difference")
    parser.add_argument("--inner-folds", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    global TOLERANCE, INNER_FOLDS
    TOLERANCE = args.tolerance if args.tolerance == "se" else float(args.tolerance)
    INNER_FOLDS = args.inner_folds
    intervals = tuple(None if v.lower() == "none" else int(v) for v in args.max_intervals)
    global CONFLICTS
    CONFLICTS = args.conflicts

    if args.quick:
        datasets = args.datasets or ["haberman", "wisconsin"]
        grid = list(itertools.product((5, 20), ("H1",), (6.0, 4.6), (ALPHA,), (MAX_FEATURES,), (None,)))
    else:
        datasets = args.datasets or DATASETS
        alphas = ALPHAS if args.conflicts == "majority" else (ALPHA,)
        grid = list(itertools.product(ESTIMATORS, HEURISTICS, THRESHOLDS, alphas, tuple(args.max_features),
                                      intervals))
    out = Path(args.out) if args.out else Path(__file__).parent / "results" / "libre_paper.md"

    rows, details = [], []
    started = time.perf_counter()
    for name in datasets:
        configs = grid
        adult_train, note = None, ""
        if name == "adult":
            configs = [c for c in grid if c[0] in args.adult_estimators]
            adult_train = args.adult_train
            note = f" (reduced: {adult_train} train rows/fold, E in {sorted(set(args.adult_estimators))})"
        log(f"{name}: {len(configs)} configurations")
        run = run_dataset(name, configs, args.n_jobs, adult_train)
        for label in ("libre", "libre 3"):
            rows.append(summarize(name, label, run["result"][label], note))
            log(rows[-1])
        n = run["notes"]
        details.append(f"* {name}: {n['seconds']:.0f} s; rules covering a training negative: "
                       f"{n['neg_covered']}; alpha .5/.7/.9 same rules (fold 0): {n['alpha_same']}; "
                       f"prefix == max_rules=k refit: {n['prefix_checks'] - n['prefix_mismatch']}/"
                       f"{n['prefix_checks']} folds\n" + "\n".join(f"  * {c}" for c in n["choices"]))
    total = time.perf_counter() - started
    table = markdown_table(rows)
    log(table)
    log(f"total {total:.0f} s")
    command = "python benchmarks/libre_paper.py" + (" --quick" if args.quick else "") + (
        f" --datasets {' '.join(args.datasets)}" if args.datasets else "") + f" --n-jobs {args.n_jobs}" + (
        f" --conflicts {args.conflicts}" if args.conflicts != "strict" else "") + (
        f" --max-features {' '.join(map(str, args.max_features))}" if args.max_features != [MAX_FEATURES] else "") + (
        f" --max-intervals {' '.join(args.max_intervals)}" if intervals != (None,) else "") + (
        f" --tolerance {args.tolerance}" if args.tolerance != "se" else "") + (
        f" --inner-folds {args.inner_folds}" if args.inner_folds != 3 else "")
    if "adult" in datasets:
        command += f" --adult-train {args.adult_train} --adult-estimators " + " ".join(
            map(str, args.adult_estimators))
    grid_text = (f"E in {sorted({c[0] for c in grid})}, heuristic in {sorted({c[1] for c in grid})}, "
                 f"ChiMerge threshold in {sorted({c[2] for c in grid}, reverse=True)}, alpha in "
                 f"{sorted({c[3] for c in grid})}, max_features in {sorted({c[4] for c in grid})}, ChiMerge "
                 f"max_intervals in {sorted({c[5] or 0 for c in grid})} (0 = none), top_k = 200 (default), "
                 f"random_state = {SEED}, k = max_rules from the greedy prefixes")
    write_report(
        out, "LIBRE against the paper (Appendix E, Tables 7-9)", command,
        f"Total run time: {total:.0f} s.\n\n"
        f"Grid: {grid_text}. Outer stratified 5-fold CV (shuffle, seed 0); selection by inner "
        f"stratified {INNER_FOLDS}-fold CV on the outer training fold; among the (configuration, k) within "
        f"{'one standard error' if TOLERANCE == 'se' else f'{TOLERANCE:g} F1'} of the best mean inner F1, fewer rules first "
        "(smallest k, then highest inner F1, then smallest E, then grid order); refit on the outer "
        "training fold with max_rules = k. libre 3: k <= 3. Acceptance: mean F1 >= paper - 0.03 and "
        "mean #rules <= max(1.5 x paper, paper + 3). Values are mean (sample std) over the 5 outer "
        "folds; paper values are the libre / libre 3 columns of Tables 7 (F1), 8 (#rules), 9 (atoms).\n\n"
        f"{table}\n\n## Verdicts\n\n"
        + "\n".join(f"* {r['dataset']} / {r['method']}: {r['acceptance']} (F1 {r['F1']} vs {r['paper F1']}, "
                    f"#rules {r['#rules']} vs {r['paper #rules']})" for r in rows)
        + "\n\n## Per-dataset checks and chosen configurations\n\n" + "\n".join(details) + "\n")


if __name__ == "__main__":
    main()
