"""File names made from ids: the rule by which a layout names each test example's file after its id, learnt from
the test examples, so that an example under a fresh id (`swarm.evaluation.fresh_ids`) gets the file name a test
example with that id would have.

MLE-bench's COCO-style layouts name test images so: herbarium-2020 `images/<id // 1000:03d>/<id>.jpg`,
herbarium-2022 `<id // 1000:03d>/test-<id:06d>.jpg`, iwildcam-2020 `<id>.jpg`. A name's parts are read one by one:
a part holding the id (as it is, or a number zero-padded) keeps its text around it; a part that is a number the
id's is not is the id's number divided by a power of ten (its thousands: a folder per thousand images); any other
part is the same for every example. The rule is kept only where it gives every test example's own name back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

_DIGITS = re.compile(r"\d+")
SHIFTS = (3, 1, 2, 4, 5, 6)  # powers of ten a folder number may divide the id's by, the thousands first

Part = Callable[[str], str]


def name_template(ids: list[str], names: list[str]) -> Callable[[str], str] | None:
    """The rule naming each test example's file after its id (see the module docstring), or None where no rule
    read from the first example gives every example's own name."""
    if not ids or len(ids) != len(names):
        return None
    first = PurePosixPath(names[0]).parts
    choices = [_part_choices(ids[0], part) for part in first]
    rule: list[Part] = []
    for position, options in enumerate(choices):
        found = next(
            (
                option
                for option in options
                if all(
                    len(PurePosixPath(name).parts) == len(first)
                    and option(i) == PurePosixPath(name).parts[position]
                    for i, name in zip(ids, names, strict=True)
                )
            ),
            None,
        )
        if found is None:
            return None
        rule.append(found)
    return lambda identifier: str(PurePosixPath(*(part(identifier) for part in rule)))


def _part_choices(identifier: str, part: str) -> list[Part]:
    """The ways one part of a name may follow the id, the likeliest first: the id as it is within the part, the
    id's number zero-padded (or not) within it, the id's number over a power of ten, or the part as it is."""
    choices: list[Part] = []
    at = part.find(identifier)
    if at >= 0:
        before, after = part[:at], part[at + len(identifier) :]
        choices.append(lambda i, b=before, a=after: f"{b}{i}{a}")
    if identifier.isdigit():
        number = int(identifier)
        for match in _DIGITS.finditer(part):
            digits = match.group(0)
            before, after = part[: match.start()], part[match.end() :]
            width = len(digits) if digits.startswith("0") and len(digits) > 1 else 0
            if int(digits) == number:
                choices.append(lambda i, b=before, a=after, w=width: f"{b}{int(i):0{w}d}{a}")
            for shift in SHIFTS:
                if int(digits) == number // 10**shift:
                    choices.append(
                        lambda i, b=before, a=after, w=width, s=shift: f"{b}{int(i) // 10**s:0{w}d}{a}"
                    )
    choices.append(lambda _i, p=part: p)
    return choices
