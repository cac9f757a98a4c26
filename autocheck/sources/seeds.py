"""Streamed seed selection: search a dataset without holding it.

``select_seeds`` reads a re-readable example stream in windows and keeps only what the suite uses: the
seeds each capability selects and the filler examples drawn for them. Memory is bounded by those, not by
the rows read. The choice is the same as searching the whole dataset held in a list (``search.search``,
``search.select``, ``transform.filler_candidates``): the k-th match in id order is the k-th match read
when the source lists its rows in id order (every single file does: its ids are line numbers), so

1. a first pass counts the matches of each capability (and of each filler pool: a label and a length)
   and keeps them while there are no more than ``max_seeds``;
2. the seeds are drawn from those counts with the same generator as ``search.select``; where a capability
   matched more than ``max_seeds``, a second pass collects the drawn ones;
3. the fillers each seed draws are known from the pools' sizes (``transform.filler_draw``), and a last pass
   collects them. Passes 2 and 3 stop reading as soon as everything wanted is collected.

Pass 1 also notes where each match was read (up to ``ROW_MEMORY`` positions per capability or pool), so
passes 2 and 3 only read rows: they tokenise and search nothing again (tokenising is most of a search:
SST's three passes took two thirds of a default ``generate``'s search). A target with more matches than
that searches again in the later passes. And it holds the matched examples themselves while they are no
more than ``EXAMPLE_MEMORY`` (every target's together, each row once): then passes 2 and 3 take them from
there and read nothing (reading a row again also normalises its text again, the rest of what those passes
cost: on SST's 11,855 rows a third of ``autocheck seeds``' CPU).

A source whose ids are not in order (the SST tables of several splits) is read the same way, but the
matches of a capability (or pool) in disorder are all kept and sorted, as the in-memory search does.
"""

from __future__ import annotations

import copy
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..records import Example
from ..requirements import Capability, Filler, Length
from ..store import rng_for
from .search import analyze, natural_key, raw_holds, search, select
from .transform import filler_draw

WINDOW = 2048  # examples analysed and tagged together (bounds memory; tagging is batched per window)
ROW_MEMORY = 1 << 21  # match positions a target notes for the later passes (8 bytes each)
EXAMPLE_MEMORY = 1 << 16  # matched examples pass 1 holds for the later passes (a row about a kilobyte)

Progress = Callable[[Iterable[Any], int | None, str], Iterable[Any]]


@dataclass
class _Target:
    """The matches of one capability's search or one filler pool, counted in read order."""

    limit: int | None  # keep the first ``limit`` matches in pass 1 (None: all)
    count: int = 0
    last: tuple | None = None
    ordered: bool = True  # read order is id order (no id repeated)
    kept: list[Example] = field(default_factory=list)
    complete: bool = True  # ``kept`` holds every match
    wanted: set[int] | None = None  # pass 2/3: the indices to collect (None: all, sorted after)
    found: dict[int, Example] = field(default_factory=dict)
    rows: array | None = field(default_factory=lambda: array("q"))  # where pass 1 read each match, in order

    def first_pass(self, example: Example, row: int) -> None:
        if self.rows is not None:
            self.rows.append(row)
            if len(self.rows) > ROW_MEMORY:
                self.rows = None  # too many to note: the later passes search again
        key = natural_key(example)
        if self.last is not None and not key > self.last:
            self.ordered = False
        self.last = key
        if self.limit is None or self.count < self.limit:
            self.kept.append(example)
        else:
            self.complete = False
        self.count += 1

    def collect(self, example: Example, index: int) -> None:
        if self.wanted is None or index in self.wanted:
            self.found[index] = example

    def read_between(self, start: int, stop: int) -> list[int]:
        """The positions, relative to ``start``, of the matches pass 1 read in rows ``start``..``stop``."""
        assert self.rows is not None
        rows = self.rows
        return [row - start for row in rows[bisect_left(rows, start) : bisect_left(rows, stop)]]

    def done(self, index: int) -> bool:
        """Every wanted index is at most ``index`` (nothing more to read for this target)."""
        return self.wanted is not None and (not self.wanted or max(self.wanted) <= index)


class FillerPools:
    """The filler candidates of each (length, label), as ``transform.filler_candidates`` lists them, but
    holding only the examples drawn: ``len`` is the number of candidates, indexing gives a drawn one."""

    def __init__(self, sizes: dict[tuple[Length | None, str], int]):
        self.sizes = sizes
        self.items: dict[tuple[Length | None, str], dict[int, Example]] = {k: {} for k in sizes}

    def candidates(self, filler: Filler, label: str) -> Sequence[Example]:
        return _Drawn(self.sizes.get((filler.length, label), 0), self.items.get((filler.length, label), {}))


@dataclass(frozen=True)
class _Drawn(Sequence[Example]):
    size: int
    items: dict[int, Example]

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: Any) -> Any:
        return self.items[index]  # only drawn indices are asked for; another one is a bug, not a miss


def pool_keys(capability: Capability) -> set[tuple[Length | None, str]]:
    """The (length, label) pools the capability's filler templates draw from."""
    return {
        (template.filler.length, label)
        for template in (capability.transform.templates if capability.transform else ())
        if template.filler is not None
        for _, label in template.filler.labels
    }


class _Ticks:
    """Progress of a pass: megabytes read of the file's size when known (total and ETA), else thousands
    of rows."""

    def __init__(self, report: Progress, stats: Any, description: str):
        self.stats, self.sized = stats, bool(getattr(stats, "size", None))
        self.total = total = -(-stats.size // 2**20) if self.sized else None
        unit = "MB read" if self.sized else "thousand rows"
        self.ticks = iter(report(iter(range(1 << 62)), total, f"{description} ({unit})"))
        self.done = 0
        next(self.ticks, None)

    def advance(self, rows: int) -> None:
        now = self.stats.bytes_read // 2**20 if self.sized else rows // 1000
        while self.done < now:
            next(self.ticks, None)
            self.done += 1

    def finish(self) -> None:
        """The whole source was read: the last, partial megabyte (or thousand rows) counts too."""
        if self.total is not None:
            while self.done < self.total:
                next(self.ticks, None)
                self.done += 1

    def close(self) -> None:
        close = getattr(self.ticks, "close", None)
        if close:
            close()


def _windows(examples: Iterable[Example]) -> Iterator[list[Example]]:
    window: list[Example] = []
    for example in examples:
        window.append(example)
        if len(window) == WINDOW:
            yield window
            window = []
    if window:
        yield window


def _matches(
    window: list[Example],
    searched: Sequence[Capability],
    pools: Iterable[tuple[Length | None, str]],
    lexicon: Any,
) -> dict[Any, list[int]]:
    """Per capability id and pool key, the positions in ``window`` that match, in order. Only the examples
    whose label (and raw text) some search group or pool accepts are tokenised: tokenising is most of a
    search, and a search by label rejects most rows on that alone."""
    pools = list(pools)
    groups = [group for capability in searched for group in capability.search]
    labels = {label for _, label in pools}
    analyzed = analyze(e for e in window if e.label in labels or any(raw_holds(group, e) for group in groups))
    position = {id(e): i for i, e in enumerate(window)}
    out: dict[Any, list[int]] = {}
    for capability in searched:
        ids = {e.id for e in search(analyzed, capability, lexicon)}
        out[capability.id] = [i for i, e in enumerate(window) if e.id in ids]
    for length, label in pools:
        out[length, label] = [
            position[id(a.example)]
            for a in analyzed
            if a.example.label == label and (length is None or a.length in length)
        ]
    return out


def select_seeds(
    read: Callable[[], Iterable[Example]],
    capabilities: Sequence[Capability],
    lexicon: Any,
    *,
    max_seeds: int | None,
    seed: int,
    compat: bool = False,
    progress: Progress | None = None,
    stats: Any = None,
) -> tuple[dict[str, list[Example]], FillerPools, int]:
    """The seeds of each capability that searches a dataset (``search.select``'s choice), the filler pools
    of their templates, and the number of examples read. ``read()`` streams the examples afresh;
    ``stats`` (a ``datasets.DatasetStats``) gives the progress its size and bytes read."""
    report = progress or (lambda items, total, description: items)
    searched = [c for c in capabilities if c.needs_dataset]
    seeds = {c.id: _Target(limit=max_seeds) for c in searched}
    pools = {key: _Target(limit=0) for c in searched for key in sorted(pool_keys(c), key=repr)}

    held: dict[int, Example] | None = {}  # pass 1's matches by row, while EXAMPLE_MEMORY allows

    def run_pass(targets: dict[Any, _Target], description: str, first: bool) -> int:
        nonlocal held
        n = 0
        index = dict.fromkeys(targets, 0)  # per target: the next match's index
        ticks = _Ticks(report, stats, description)
        try:
            for window in _windows(read()):
                if first or any(t.rows is None for t in targets.values()):
                    capabilities_left = searched if first else [c for c in searched if c.id in targets]
                    pools_left = [k for k in targets if isinstance(k, tuple)]
                    matches = _matches(window, capabilities_left, pools_left, lexicon)
                else:  # where pass 1 found them: nothing to tokenise
                    matches = {key: t.read_between(n, n + len(window)) for key, t in targets.items()}
                for key, positions in matches.items():
                    target = targets[key]
                    for i in positions:
                        if first:
                            target.first_pass(window[i], n + i)
                            if held is not None:
                                held[n + i] = window[i]
                        else:
                            target.collect(window[i], index[key])
                        index[key] += 1
                if held is not None and len(held) > EXAMPLE_MEMORY:
                    held = None  # too many to hold: the later passes read the rows again
                n += len(window)
                ticks.advance(n)
                if not first and all(t.done(index[k] - 1) for k, t in targets.items()):
                    break  # everything wanted is collected: stop reading
            else:
                ticks.finish()
        finally:
            ticks.close()
        return n

    def collect(targets: dict[Any, _Target], description: str) -> None:
        """Pass 2 or 3: from the examples pass 1 held when it could, else by reading the rows again."""
        if held is None or any(t.rows is None for t in targets.values()):
            run_pass(targets, description, first=False)
            return
        for target in targets.values():
            assert target.rows is not None
            for index, row in enumerate(target.rows):
                target.collect(held[row], index)

    rows = run_pass({**seeds, **pools}, "search", first=True)
    # the counts of the whole first pass are the dataset's (a later pass may stop early)
    counted = ("read", "kept", "skipped", "unknown_labels")
    first_counts = {name: copy.deepcopy(getattr(stats, name)) for name in counted if hasattr(stats, name)}
    chosen: dict[str, list[Example]] = {}
    todo: dict[Any, _Target] = {}
    for cap_id, target in seeds.items():
        if target.complete and target.ordered:
            chosen[cap_id] = target.kept
        elif target.complete:  # all kept, in disorder: as the in-memory search
            chosen[cap_id] = select(list({e.id: e for e in target.kept}.values()), max_seeds, seed, cap_id)
        else:
            target.kept = []
            if target.ordered:  # the drawn indices, as search.select draws them
                assert max_seeds is not None
                drawn = rng_for(seed, cap_id).choice(target.count, size=max_seeds, replace=False)
                target.wanted = set(drawn.tolist())
            todo[cap_id] = target
    if todo:
        collect(todo, "search: collect the drawn seeds")
        for cap_id, target in todo.items():
            if target.ordered:
                chosen[cap_id] = [target.found[i] for i in sorted(target.found)]
            else:
                unique = {e.id: e for e in target.found.values()}
                chosen[cap_id] = select(list(unique.values()), max_seeds, seed, cap_id)
    filler_pools = FillerPools({key: t.count for key, t in pools.items()})
    wanted: dict[Any, set[int]] = {key: set() for key in pools}
    for capability in searched:
        for template in capability.transform.templates if capability.transform else ():
            filler = template.filler
            if filler is None:
                continue
            for example in chosen[capability.id]:
                label = filler.label_for(example.label)
                if label is None or (template.labels and example.label not in template.labels):
                    continue
                key = (filler.length, label)
                size = filler_pools.sizes.get(key, 0)
                if size:
                    wanted[key].update(filler_draw(capability.id, template, example.id, size, seed, compat))
    todo = {}
    for key, target in pools.items():
        if wanted[key] or not target.ordered:
            target.wanted = wanted[key] if target.ordered else None
            todo[key] = target
    if todo:
        collect(todo, "search: collect the drawn fillers")
        for key, target in todo.items():
            if target.ordered:
                filler_pools.items[key] = target.found
            else:  # disorder: sort them all, as transform.filler_candidates does
                ranked = sorted({e.id: e for e in target.found.values()}.values(), key=natural_key)
                filler_pools.sizes[key] = len(ranked)
                filler_pools.items[key] = dict(enumerate(ranked))
    for name, value in first_counts.items():
        setattr(stats, name, value)
    return chosen, filler_pools, rows


def uses_contractions(capabilities: Iterable[Capability]) -> bool:
    """Whether the dataset text gets the paper's normalisation, contractions expanded: where a capability's
    search tests words, negation or a pattern, or its templates rewrite the seed (the sentiment LCs are
    written for "is not", never "isn't"). Otherwise (``perturb``, label or column searches) the text stays as
    written, so a perturbation such as ``expand_contractions`` has something to act on."""
    return any(
        capability.transform is not None
        or any(
            g.include or g.exclude or g.negated is not None or g.pattern is not None
            for g in capability.search
        )
        for capability in capabilities
    )
