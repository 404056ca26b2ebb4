"""AmesHousing (De Cock 2011) -> modelling table for the random-forest surrogate (censored_resources §4).

The experiment (spec censored_resources.md §4) trains ranger-style random forests on the table that R's
``AmesHousing::make_ames()`` builds (modeldata::ames plus its 7 quality columns): target raw
``Sale_Price``, every other column a predictor, each factor encoded as ONE integer column (R factor codes,
1-based), as ranger does with ``respect.unordered.factors = "ignore"``. No one-hot encoding.

This module rebuilds make_ames() from De Cock's raw file (the transformation of AmesHousing/R/make_ames.R,
re-implemented in pandas):

- Reading: every cell as its literal string (the CSV has a UTF-8 byte-order mark and CRLF); cells are
  whitespace-trimmed (R's readr does this, so ``"WD "`` becomes ``"WD"``); the empty string and ``"NA"`` are
  missing (readr's defaults); the string ``"None"`` (Mas Vnr Type, 1752 rows) is a level, never missing.
- Renaming: spaces -> ``_``; ``SalePrice`` -> ``Sale_Price``; ``3Ssn Porch`` -> ``Three_season_porch``;
  ``Year Remod/Add`` -> ``Year_Remod_Add``; ``1st/2nd Flr SF`` -> ``First_Flr_SF``/``Second_Flr_SF``;
  ``Yr Sold`` -> ``Year_Sold`` (modeldata's names).
- Levels: make_ames' recodes (MS_SubClass, MS_Zoning, Lot_Shape, Bldg_Type, House_Style, Neighborhood,
  quality scales Ex/Gd/TA/Fa/Po -> Excellent/Good/Typical/Fair/Poor, Overall_* 1..10 -> Very_Poor..
  Very_Excellent); "absent feature" NAs become explicit levels (No_Basement, No_Garage, No_Fireplace,
  No_Pool, No_Fence, No_alley_access, None for Misc_Feature/Mas_Vnr_Type); area/count NAs of absent
  features become 0 (Lot_Frontage, Mas_Vnr_Area, basement SF and baths, Garage_Cars/Area).
- Electrical: one house has no value. make_ames() of AmesHousing 0.0.3 drops it, but modeldata::ames
  (which the spec names) keeps all 2930 rows, so it is kept here as level ``Unknown``.
- BsmtFin_SF_1: make_ames() assigns ``ifelse(is.na(BsmtFin_SF_1), 0, BsmtFin_Type_1)``, i.e. the integer
  code (1..7) of BsmtFin_Type_1 instead of the square feet. modeldata::ames carries that value. It is
  reproduced (``reproduce_make_ames_quirks=True``, the default) so that the forest sees the same columns as
  in R; pass False to keep the real square feet.
- Dropped: Order, PID, Garage_Yr_Blt (make_ames drops them). make_ames' Longitude/Latitude come from a
  separate geocoding table (AmesHousing::ames_geo) that is not part of De Cock's file: NOT included.
- Factor codes: R's ``factor()`` level order, i.e. sorted as in an en_US locale (case-insensitive first);
  ``recode_factor`` columns (MS_SubClass, MS_Zoning, Lot_Shape, Bldg_Type) keep the recode order.

Outputs (``data/processed/ameshousing/``):

``ames_model_table.csv``
    2930 rows x 79 columns: 78 predictors (46 factor columns as int codes 1..k, 32 numeric columns,
    all int64) and ``Sale_Price`` (int64, last column). No missing values.
``ames_model_table.columns.csv``
    column, kind (factor / numeric / target), raw_column (name in De Cock's file), n_levels, levels
    (``|``-separated labels in code order 1..k; empty for numeric).
``ameshousing.provenance.json``
    Inputs' sha256 and the parameters above.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .fetch import load_record, read_raw_table, record_file_path
from .integrity import DataError, staged_file
from .sidecar import write_sidecar

TABLE_FILE = "ames_model_table.csv"
COLUMNS_FILE = "ames_model_table.columns.csv"
TARGET = "Sale_Price"

RENAMES = {
    "SalePrice": "Sale_Price",
    "3Ssn_Porch": "Three_season_porch",
    "Year_Remod/Add": "Year_Remod_Add",
    "1st_Flr_SF": "First_Flr_SF",
    "2nd_Flr_SF": "Second_Flr_SF",
    "Yr_Sold": "Year_Sold",
}
DROPPED = ("Order", "PID", "Garage_Yr_Blt")

MS_SUBCLASS = {
    "020": "One_Story_1946_and_Newer_All_Styles", "030": "One_Story_1945_and_Older",
    "040": "One_Story_with_Finished_Attic_All_Ages", "045": "One_and_Half_Story_Unfinished_All_Ages",
    "050": "One_and_Half_Story_Finished_All_Ages", "060": "Two_Story_1946_and_Newer",
    "070": "Two_Story_1945_and_Older", "075": "Two_and_Half_Story_All_Ages", "080": "Split_or_Multilevel",
    "085": "Split_Foyer", "090": "Duplex_All_Styles_and_Ages", "120": "One_Story_PUD_1946_and_Newer",
    "150": "One_and_Half_Story_PUD_All_Ages", "160": "Two_Story_PUD_1946_and_Newer",
    "180": "PUD_Multilevel_Split_Level_Foyer", "190": "Two_Family_conversion_All_Styles_and_Ages",
}
MS_ZONING = {
    "A": "Agriculture", "C": "Commercial", "FV": "Floating_Village_Residential", "I": "Industrial",
    "RH": "Residential_High_Density", "RL": "Residential_Low_Density", "RP": "Residential_Low_Density_Park",
    "RM": "Residential_Medium_Density", "A (agr)": "A_agr", "C (all)": "C_all", "I (all)": "I_all",
}
LOT_SHAPE = {"Reg": "Regular", "IR1": "Slightly_Irregular", "IR2": "Moderately_Irregular", "IR3": "Irregular"}
BLDG_TYPE = {"1Fam": "OneFam", "2fmCon": "TwoFmCon"}
TEN_POINT = {"10": "Very_Excellent", "9": "Excellent", "8": "Very_Good", "7": "Good", "6": "Above_Average",
             "5": "Average", "4": "Below_Average", "3": "Fair", "2": "Poor", "1": "Very_Poor"}
FIVE_POINT = {"Ex": "Excellent", "Gd": "Good", "TA": "Typical", "Fa": "Fair", "Po": "Poor"}
NEIGHBORHOOD = {
    "Blmngtn": "Bloomington_Heights", "Bluestem": "Bluestem", "BrDale": "Briardale", "BrkSide": "Brookside",
    "ClearCr": "Clear_Creek", "CollgCr": "College_Creek", "Crawfor": "Crawford", "Edwards": "Edwards",
    "Gilbert": "Gilbert", "Greens": "Greens", "GrnHill": "Green_Hills", "IDOTRR": "Iowa_DOT_and_Rail_Road",
    "Landmrk": "Landmark", "MeadowV": "Meadow_Village", "Mitchel": "Mitchell", "NAmes": "North_Ames",
    "NoRidge": "Northridge", "NPkVill": "Northpark_Villa", "NridgHt": "Northridge_Heights",
    "NWAmes": "Northwest_Ames", "OldTown": "Old_Town", "SWISU": "South_and_West_of_Iowa_State_University",
    "Sawyer": "Sawyer", "SawyerW": "Sawyer_West", "Somerst": "Somerset", "StoneBr": "Stone_Brook",
    "Timber": "Timberland", "Veenker": "Veenker",
}
# Quality columns on the Ex..Po scale and the level that stands for "feature absent" (None: never absent).
QUALITY_COLUMNS = {
    "Exter_Qual": None, "Exter_Cond": None, "Heating_QC": None, "Kitchen_Qual": None,
    "Bsmt_Qual": "No_Basement", "Bsmt_Cond": "No_Basement", "Fireplace_Qu": "No_Fireplace",
    "Garage_Qual": "No_Garage", "Garage_Cond": "No_Garage", "Pool_QC": "No_Pool",
}
ABSENT_LEVEL = {
    "Alley": "No_alley_access", "Bsmt_Exposure": "No_Basement", "BsmtFin_Type_1": "No_Basement",
    "BsmtFin_Type_2": "No_Basement", "Garage_Type": "No_Garage", "Garage_Finish": "No_Garage",
    "Fence": "No_Fence", "Misc_Feature": "None", "Mas_Vnr_Type": "None", "Electrical": "Unknown",
}
ZERO_IF_MISSING = ("Lot_Frontage", "Mas_Vnr_Area", "BsmtFin_SF_1", "BsmtFin_SF_2", "Bsmt_Unf_SF",
                   "Total_Bsmt_SF", "Bsmt_Full_Bath", "Bsmt_Half_Bath", "Garage_Cars", "Garage_Area")
NUMERIC_COLUMNS = (
    "Lot_Frontage", "Lot_Area", "Year_Built", "Year_Remod_Add", "Mas_Vnr_Area", "BsmtFin_SF_1", "BsmtFin_SF_2",
    "Bsmt_Unf_SF", "Total_Bsmt_SF", "First_Flr_SF", "Second_Flr_SF", "Low_Qual_Fin_SF", "Gr_Liv_Area",
    "Bsmt_Full_Bath", "Bsmt_Half_Bath", "Full_Bath", "Half_Bath", "Bedroom_AbvGr", "Kitchen_AbvGr",
    "TotRms_AbvGrd", "Fireplaces", "Garage_Cars", "Garage_Area", "Wood_Deck_SF", "Open_Porch_SF",
    "Enclosed_Porch", "Three_season_porch", "Screen_Porch", "Pool_Area", "Misc_Val", "Mo_Sold", "Year_Sold",
)
# recode_factor() keeps the order of its arguments for these columns.
RECODE_FACTOR_ORDER = {"MS_SubClass": MS_SUBCLASS, "MS_Zoning": MS_ZONING, "Lot_Shape": LOT_SHAPE,
                       "Bldg_Type": BLDG_TYPE}


def read_ames_raw(path: Path, fmt: str = "csv") -> pd.DataFrame:
    """Raw De Cock table: literal strings, trimmed; "" and "NA" -> missing; "None" stays a string."""
    table = read_raw_table(path, fmt)
    table.columns = [c.strip() for c in table.columns]
    table = table.apply(lambda column: column.str.strip())
    return table.replace({"": np.nan, "NA": np.nan})


def r_sorted_levels(values: pd.Series) -> list[str]:
    """Levels as R's factor() sorts them in an en_US locale: case-insensitive, then case."""
    return sorted(values.dropna().unique(), key=lambda s: (s.casefold(), s))


def _recode_factor_levels(values: pd.Series, mapping: dict[str, str]) -> list[str]:
    present = set(values.dropna())
    ordered = [label for label in dict.fromkeys(mapping.values()) if label in present]
    rest = [level for level in r_sorted_levels(values) if level not in set(mapping.values())]
    return ordered + rest


def make_ames(raw: pd.DataFrame, reproduce_make_ames_quirks: bool = True) -> tuple[pd.DataFrame, dict]:
    """Return (table with factor columns as pandas Categoricals in R level order, raw-name map)."""
    frame = raw.copy()
    raw_names = {}
    renamed = []
    for column in frame.columns:
        new = column.replace(" ", "_")
        new = RENAMES.get(new, new)
        raw_names[new] = column
        renamed.append(new)
    frame.columns = renamed
    expected = set(NUMERIC_COLUMNS) | {TARGET, *DROPPED}
    missing = expected - set(frame.columns)
    if missing:
        raise DataError(f"AmesHousing: columns {sorted(missing)} not found; header is {list(raw.columns)}")

    frame["MS_SubClass"] = frame["MS_SubClass"].map(lambda v: MS_SUBCLASS.get(v, v) if isinstance(v, str) else v)
    frame["MS_Zoning"] = frame["MS_Zoning"].map(lambda v: MS_ZONING.get(v, v) if isinstance(v, str) else v)
    frame["Lot_Shape"] = frame["Lot_Shape"].replace(LOT_SHAPE)
    frame["Bldg_Type"] = frame["Bldg_Type"].replace(BLDG_TYPE)
    frame["House_Style"] = (frame["House_Style"].str.replace(r"^1\.5", "One_and_Half_", regex=True)
                            .str.replace(r"^1", "One_", regex=True)
                            .str.replace(r"^2\.5", "Two_and_Half_", regex=True)
                            .str.replace(r"^2", "Two_", regex=True))
    frame["Garage_Type"] = frame["Garage_Type"].replace({"2Types": "More_Than_Two_Types"})
    frame["Neighborhood"] = frame["Neighborhood"].replace(NEIGHBORHOOD)
    for column in ("Overall_Qual", "Overall_Cond"):
        frame[column] = frame[column].replace(TEN_POINT)
    for column, absent in QUALITY_COLUMNS.items():
        frame[column] = frame[column].replace(FIVE_POINT)
        if absent is not None:
            frame[column] = frame[column].fillna(absent)
    for column, absent in ABSENT_LEVEL.items():
        frame[column] = frame[column].fillna(absent)

    numeric = {}
    for column in (*NUMERIC_COLUMNS, TARGET):
        values = pd.to_numeric(frame[column], errors="raise")
        if column in ZERO_IF_MISSING:
            values = values.fillna(0)
        numeric[column] = values
    if reproduce_make_ames_quirks:
        # make_ames(): BsmtFin_SF_1 <- ifelse(is.na(BsmtFin_SF_1), 0, BsmtFin_Type_1) (factor code).
        type_levels = r_sorted_levels(frame["BsmtFin_Type_1"])
        codes = frame["BsmtFin_Type_1"].map({level: i + 1 for i, level in enumerate(type_levels)})
        numeric["BsmtFin_SF_1"] = codes.where(frame["BsmtFin_SF_1"].notna(), 0)

    frame = frame.drop(columns=list(DROPPED))
    factor_columns = [c for c in frame.columns if c not in numeric]
    for column in factor_columns:
        values = frame[column]
        if column in RECODE_FACTOR_ORDER:
            levels = _recode_factor_levels(values, RECODE_FACTOR_ORDER[column])
        else:
            levels = r_sorted_levels(values)
        frame[column] = pd.Categorical(values, categories=levels)
    for column, values in numeric.items():
        frame[column] = values
    still_missing = frame.columns[frame.isna().any()].tolist()
    if still_missing:
        raise DataError(f"AmesHousing: missing values left in {still_missing} after the make_ames() rules")
    ordered_columns = [c for c in frame.columns if c != TARGET] + [TARGET]
    return frame[ordered_columns], raw_names


def encode(table: pd.DataFrame, raw_names: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Factor columns -> 1-based integer codes (ranger's respect.unordered.factors="ignore")."""
    encoded = pd.DataFrame(index=table.index)
    docs = []
    for column in table.columns:
        values = table[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            encoded[column] = values.cat.codes.astype(np.int64) + 1
            levels = list(values.cat.categories)
            docs.append((column, "factor", raw_names[column], len(levels), "|".join(levels)))
        else:
            as_int = values.astype(np.int64)
            if not np.array_equal(as_int.to_numpy(), values.to_numpy()):
                raise DataError(f"AmesHousing: column {column} has non-integer values")
            encoded[column] = as_int
            docs.append((column, "target" if column == TARGET else "numeric", raw_names[column], 0, ""))
    columns = pd.DataFrame(docs, columns=["column", "kind", "raw_column", "n_levels", "levels"])
    return encoded, columns


def preprocess(record_file: Path, out_dir: Path, reproduce_make_ames_quirks: bool = True) -> list[Path]:
    record = load_record(record_file)
    entry = record["files"].get("AmesHousing.csv")
    if entry is None:
        raise DataError("ameshousing: the fetch record lists no AmesHousing.csv")
    raw = read_ames_raw(record_file_path(record, "AmesHousing.csv"), entry.get("format") or "csv")
    table, raw_names = make_ames(raw, reproduce_make_ames_quirks)
    encoded, columns = encode(table, raw_names)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    table_path, columns_path = out_dir / TABLE_FILE, out_dir / COLUMNS_FILE
    with staged_file(table_path) as tmp:
        encoded.to_csv(tmp, index=False)
    with staged_file(columns_path) as tmp:
        columns.to_csv(tmp, index=False)
    summary = {
        "rows": int(encoded.shape[0]), "columns": int(encoded.shape[1]),
        "predictors": int(encoded.shape[1] - 1),
        "factor_predictors": int((columns["kind"] == "factor").sum()),
        "numeric_predictors": int((columns["kind"] == "numeric").sum()),
        "mas_vnr_type_none": int((table["Mas_Vnr_Type"] == "None").sum()),
        "sale_price_mean": float(encoded[TARGET].mean()),
    }
    write_sidecar(out_dir, "ameshousing", record, [table_path, columns_path],
                  parameters={"reproduce_make_ames_quirks": reproduce_make_ames_quirks,
                              "electrical_missing_level": "Unknown", "geo_columns": "not included",
                              "factor_encoding": "R factor codes 1..k (ranger respect.unordered.factors=ignore)"},
                  summary=summary)
    return [table_path, columns_path]
