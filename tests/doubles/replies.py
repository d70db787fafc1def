"""Scripted model replies the tests queue on the loopback server: a whole, quick solution to titanic."""

from __future__ import annotations

# A titanic solution that runs in a blink (stdlib only): survival by sex, an accuracy on a holdout, and a
# valid submission. `{tag}` makes every variant's code (so its execution cache key) distinct.
QUICK_SOLUTION = """Plan: predict survival from the passenger's sex, the strongest single feature.

```python
# variant {tag}
import csv

rows = list(csv.DictReader(open("input/train.csv")))
test = list(csv.DictReader(open("input/test.csv")))
fit, hold = rows[: len(rows) * 4 // 5], rows[len(rows) * 4 // 5 :]


def rate(sex):
    group = [r for r in fit if r["Sex"] == sex]
    return sum(int(r["Survived"]) for r in group) / max(len(group), 1)


guess = {{sex: int(rate(sex) >= 0.5) for sex in ("male", "female")}}
accuracy = sum(guess.get(r["Sex"], 0) == int(r["Survived"]) for r in hold) / len(hold)
print('SWARM_METRIC {{"name": "accuracy", "value": %.6f, "lower_is_better": false}}' % accuracy)
with open("submission/submission.csv", "w") as f:
    f.write("PassengerId,Survived\\n")
    for r in test:
        f.write("%s,%d\\n" % (r["PassengerId"], guess.get(r["Sex"], 0)))
```
"""


def solution(tag: str) -> str:
    """A model reply holding a quick, valid titanic solution (`tag` names its variant: `# variant <tag>`)."""
    return QUICK_SOLUTION.format(tag=tag)
