"""Miniatures of h-and-m-personalized-fashion-recommendations' log of purchases whose later events are the
targets: the census's (`h_and_m`, on `h_and_m_purchases`) and the no-key run's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, hexes, write_files


def h_and_m(root: Path) -> Path:
    """h-and-m-personalized-fashion-recommendations: `transactions_train.csv` (`t_dat`, `customer_id` 64 hex
    digits, `article_id` 10 digits, `price`, `sales_channel_id`), `customers.csv`, `articles.csv`,
    `images/<3 digits>/<article_id>.jpg`, `sample_submission.csv` `customer_id`, `prediction` (12 article ids)
    for every customer: `h_and_m_purchases` at its smallest. The metric: `map_at_k` (k=12)."""
    return h_and_m_purchases(root, n_customers=20, n_articles=20, days=15)


def h_and_m_purchases(root: Path, n_customers: int = 150, n_articles: int = 40, days: int = 35) -> Path:
    """h-and-m's layout with purchases to learn from: `days` days of `transactions_train.csv` ending 2020-09-15,
    each customer buying on about one day in four, mostly (70%) one of their own two or three favourite
    articles, else one of the week's eight best sellers (which change each week); `private/answers.csv` each
    customer's purchases of the 7 days after (`customer_id`, `prediction`; `keep` false for those who bought
    nothing, whom grade.py does not score). The description says the span ("the 7-day period immediately after the training data ends");
    the sample gives every customer the same 12 articles, which none of them favours. The metric: `map_at_k`
    (k=12)."""
    description = (
        "# H&M\n\nPredict the articles each customer will purchase in the 7-day period immediately after the "
        "training data ends. Scored by MAP@12.\n"
    )
    public, private = dirs(root, "map_at_k", description, {"k": 12})
    rng = np.random.default_rng(161)
    customers = hexes(rng, n_customers, 64)
    articles = [f"0{v}" for v in rng.choice(10**8, n_articles, replace=False) + 10**8]
    rare, common = articles[:12], articles[12:]  # the sample's 12: bought by no one
    favourites = {c: list(rng.choice(common, int(rng.integers(2, 4)), replace=False)) for c in customers}
    first = pd.Timestamp("2020-09-15") - pd.Timedelta(days=days - 1)
    rows, answers = [], {}
    for day in range(days + 7):
        date = first + pd.Timedelta(days=day)
        week = np.random.default_rng(day // 7).choice(common, 8, replace=False)
        for customer in customers:
            if rng.random() >= 0.25:
                continue
            for _ in range(int(rng.integers(1, 3))):
                article = rng.choice(favourites[customer]) if rng.random() < 0.7 else rng.choice(week)
                if day < days:
                    rows.append([date.strftime("%Y-%m-%d"), customer, article, 0.03, int(rng.integers(1, 3))])
                else:
                    answers.setdefault(customer, []).append(article)
    columns = ["t_dat", "customer_id", "article_id", "price", "sales_channel_id"]
    pd.DataFrame(rows, columns=columns).to_csv(public / "transactions_train.csv", index=False)
    # Every customer, those who bought nothing marked not scored (`keep`), as grade.py scores only the buyers.
    bought = [" ".join(answers.get(c, [])) for c in customers]
    pd.DataFrame(
        {"customer_id": customers, "prediction": bought, "keep": [c in answers for c in customers]}
    ).to_csv(private / "answers.csv", index=False)
    pd.DataFrame({"customer_id": customers, "age": 30}).to_csv(public / "customers.csv", index=False)
    pd.DataFrame({"article_id": articles, "prod_name": "dress"}).to_csv(public / "articles.csv", index=False)
    write_files(public / "images", [f"{a[1:4]}/{a}.jpg" for a in articles])
    pd.DataFrame({"customer_id": customers, "prediction": " ".join(rare)}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def later_events_competition(root: Path) -> Path:
    """h-and-m-personalized-fashion-recommendations' layout (h_and_m_purchases): a log of purchases by day,
    the sample every customer with 12 article ids, the answers the purchases of the week after the log
    ends."""
    return h_and_m_purchases(root)
