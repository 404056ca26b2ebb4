"""Verdict stability across root seeds: the extra seeds and ``results/<paper>/robustness.csv``.

The ``robustness`` targets rebuild a paper's headline claims under extra root seeds (config
``robustness_seeds``) with the normal rules, their outputs under ``results/robustness/seed<S>/<paper>/``.
``robustness.csv`` puts them beside the main build's claims: one row per headline claim, the main
build's seed first (the reference), then each extra seed, and ``agreement`` = k/N, the number k of the
N extra seeds whose verdict equals the main build's. A claim is stable when k = N. The paper report
then labels each headline claim with it (:func:`stability_labels`), its findings gain
:func:`stability_sentence` and the overall report counts the stable claims (:func:`stability_summary`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # planning imports this module (robustness_common.smk) for the seeds and figures: no pandas then
    import pandas as pd
from .vocabulary import HEADLINE, NOT_MEASURED

DEFAULT_SEED_COUNT = 3
STABLE, UNSTABLE, UNMEASURED = "yes", "no", NOT_MEASURED
# the paper report's claims-table column: whether each headline verdict held under every seed
STABILITY_COLUMN = "stable across seeds"


def robustness_seeds(root_seed: int, explicit: Sequence[int] | None = None) -> list[int]:
    """The extra root seeds: ``explicit`` when given, else three derived from the root seed as
    ``numpy.random.SeedSequence(root_seed).generate_state(3)`` (32-bit words; deterministic, and not
    neighbours of the root seed that a user might pick as another main seed). The root seed itself is
    never an extra seed: its build is the reference."""
    if explicit is None:
        seeds = [int(s) for s in np.random.SeedSequence(int(root_seed)).generate_state(DEFAULT_SEED_COUNT)]
    else:
        seeds = [int(s) for s in explicit]
    if not seeds:
        raise ValueError("robustness_seeds is empty: give at least one extra root seed")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"robustness_seeds has a repeated seed: {seeds}")
    if int(root_seed) in seeds:
        raise ValueError(f"robustness_seeds contains the root seed {root_seed}: its build is the main build "
                         "(the reference), not an extra seed")
    return seeds


def headline_figures(spec) -> list[str]:
    """Figures with at least one headline claim, in order of their first claim: the claim files a
    robustness seed builds (every claim of such a figure is evaluated; only the headline rows are kept)."""
    out: list[str] = []
    for claim in spec.claims:
        if claim["kind"] == HEADLINE and claim["figure"] not in out:
            out.append(claim["figure"])
    return out


def verdict_column(seed: int) -> str:
    return f"verdict_seed{seed}"


def measured_column(seed: int) -> str:
    return f"measured_seed{seed}"


def _headline_rows(claims: pd.DataFrame) -> pd.DataFrame:
    return claims[claims["kind"].astype(str) == HEADLINE].set_index("claim_id")


def assemble_robustness(spec, main_seed: int, main_claims: pd.DataFrame,
                        seed_claims: Mapping[int, Iterable[pd.DataFrame]]) -> pd.DataFrame:
    """The robustness table of a paper: one row per headline claim of the config (in config order).

    ``main_claims`` is the main build's claims.csv (seed ``main_seed``, the reference);
    ``seed_claims[s]`` the per-figure claim tables built under extra seed ``s``. Columns: claim_id, kind,
    verdict_seed<S> and measured_seed<S> for the main seed then each extra seed, agreement (k/N, k the
    extra seeds agreeing with the reference verdict) and stable (yes / no / not measured: the reference
    could not measure the claim, its figure not built)."""
    import pandas as pd

    headline = [c["id"] for c in spec.claims if c["kind"] == HEADLINE]
    tables = {int(main_seed): _headline_rows(main_claims)}
    for seed, parts in seed_claims.items():
        parts = list(parts)
        if int(seed) in tables:
            raise ValueError(f"seed {seed} given twice (the main seed is the reference, not an extra seed)")
        tables[int(seed)] = _headline_rows(pd.concat(parts, ignore_index=True)) if parts else _headline_rows(
            main_claims.iloc[0:0])
    extra = [s for s in tables if s != int(main_seed)]
    rows = []
    for cid in headline:
        row = {"claim_id": cid, "kind": HEADLINE}
        for seed, table in tables.items():
            if cid not in table.index:
                which = "the main build" if seed == int(main_seed) else f"seed {seed}"
                raise ValueError(f"{spec.paper}: headline claim {cid} is missing from {which}'s claims")
            row[verdict_column(seed)] = str(table.at[cid, "verdict"])
            row[measured_column(seed)] = str(table.at[cid, "measured"])
        reference = row[verdict_column(main_seed)]
        agree = sum(row[verdict_column(s)] == reference for s in extra)
        row["agreement"] = f"{agree}/{len(extra)}"
        if row[measured_column(main_seed)] == NOT_MEASURED:
            row["stable"] = UNMEASURED
        else:
            row["stable"] = STABLE if agree == len(extra) else UNSTABLE
        rows.append(row)
    columns = ["claim_id", "kind"]
    for seed in tables:
        columns += [verdict_column(seed), measured_column(seed)]
    return pd.DataFrame(rows, columns=columns + ["agreement", "stable"])


def robustness_seeds_of(table: pd.DataFrame) -> list[int]:
    """The seeds of a robustness table, the reference (main build) first."""
    return [int(c[len("verdict_seed"):]) for c in table.columns if c.startswith("verdict_seed")]


def seed_sensitive(table: pd.DataFrame) -> list[str]:
    """Headline claims whose verdict differs between seeds."""
    return [str(c) for c, s in zip(table["claim_id"], table["stable"]) if s == UNSTABLE]


def measured_claims(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of a robustness table whose claim the main build measured (its figure was built)."""
    return table[table["stable"] != UNMEASURED]


def stability_sentence(table: pd.DataFrame) -> str:
    """The findings sentence on verdict stability across root seeds."""
    seeds = robustness_seeds_of(table)
    main, extra = seeds[0], seeds[1:]
    n_extra = len(extra)
    measured = measured_claims(table)
    unstable = seed_sensitive(table)
    seed_list = ", ".join(str(s) for s in extra)
    if unstable:
        changes = "; ".join(
            f"{cid}: {' / '.join(str(r[verdict_column(s)]).replace('_', ' ') for s in seeds)}"
            for cid, r in table.set_index("claim_id").loc[unstable].iterrows())
        return (f"Seed-sensitive: {len(unstable)} of {len(measured)} measured headline claims change verdict "
                f"under the {n_extra} extra root seeds ({seed_list}) beside the main seed {main} "
                f"({', '.join(unstable)}; verdicts main seed first — {changes}).")
    return (f"All {len(measured)} measured headline claims keep their verdict under the {n_extra} extra root "
            f"seeds ({seed_list}) beside the main seed {main}.")


def stability_labels(claims: pd.DataFrame, robustness: pd.DataFrame) -> list[str]:
    """Per claim row: 'yes (3/3)' / 'no (2/3)' / 'not measured' for a headline claim in the robustness
    table, '' for a variant or sanity claim (their verdicts are not rebuilt under other seeds)."""
    by_id = robustness.set_index("claim_id")
    out = []
    for cid in claims["claim_id"].astype(str):
        if cid not in by_id.index:
            out.append("")
        elif by_id.at[cid, "stable"] == UNMEASURED:
            out.append(UNMEASURED)
        else:
            out.append(f"{by_id.at[cid, 'stable']} ({by_id.at[cid, 'agreement']})")
    return out


def stability_summary(robustness: pd.DataFrame) -> str:
    """'12/15 stable': headline claims whose verdict held under every seed, of those measured."""
    measured = measured_claims(robustness)
    return f"{int((measured['stable'] == STABLE).sum())}/{len(measured)} stable"
