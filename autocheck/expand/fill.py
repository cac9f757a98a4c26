"""Fill stage: masked-LM suggestions for masked templates (``mlm.MaskedLM``), validation, and the expanded
test cases.

Validation and casing are ``validate.py``'s: the checks in order, each a named object with one batched
call, where a user's own check can be added (``checks``).

Seeds whose text holds one of the masked LM's special tokens (``[MASK]``, ``<mask>``, ``[CLS]``,
``</s>``, ...) are never sent to it: their templates are counted as ``special_token`` and skipped, since
a literal mask token would be filled as a mask.

With a slot rule (``slot.py``) the fill search gives up partial fills whose next mask cannot take its tag;
a template left without any fill is counted as ``slot`` (``FillStats.slot``) and never validated.

Candidates are examined in score order and the first ``fills_per_mask`` valid ones per template are kept
(ALiCT's HEAD kept one; its older runs kept all, ``fills_per_mask=None``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

from ..config import GenerateConfig
from ..records import EXPANSION, MaskedTemplate, TestCase, as_inputs
from ..store import content_hash
from .context import FunctionPairs
from .expansion import ADJECTIVE_TAGS
from .fluency import Fluency
from .mlm import MaskedLM, Suggestion
from .slot import SlotRule
from .validate import (
    Candidate,
    Check,
    FillStats,
    NeutralLexicon,
    Requirement,
    Spread,
    select,
    standard_checks,
)
from .vocabulary import INTENSIFIER, VocabularyFilter

log = logging.getLogger(__name__)

# Penn Treebank word-level tags: the only mask tags a single inserted word can satisfy.
WORD_TAGS = frozenset(
    "CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM TO UH "
    "VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB".split()
)
_TEMPLATES_PER_CHUNK = 256


def fill(
    templates: Iterable[MaskedTemplate],
    cases_by_id: dict[str, TestCase],
    mlm: MaskedLM,
    lexicon: NeutralLexicon,
    requirement: Requirement,
    *,
    fills_per_mask: int | None = GenerateConfig.fills_per_mask,
    adjective_fills: int | None = GenerateConfig.adjective_fills,
    beam_size: int = GenerateConfig.beam_size,
    top_n: int = GenerateConfig.top_n,
    batch_size: int = 64,
    stats: FillStats | None = None,
    fluency: Fluency | None = None,
    context: FunctionPairs | None = None,
    vocabulary: VocabularyFilter | None = None,
    first_beam: int | None = GenerateConfig.first_beam,
    checks: Sequence[Check] = (),
    slot: SlotRule | None = None,
    spread: bool = False,
    spread_cap: float | None = None,
    polarity_exempt: Callable[[Candidate, int], bool] | None = None,
    word_checks: Sequence[Check] = (),
    intensify: Callable[[MaskedTemplate, TestCase], bool] | None = None,
    intensifiers_only: Collection[str] = (),
    seed_tags: dict[str, list] | None = None,
) -> Iterator[TestCase]:
    """Expand seed cases: fill each template's masks with the MLM and yield the valid fills as cases.

    ``requirement(seed_case, new_text)`` re-checks the seed's capability on the filled text. Counts are
    added to ``stats`` when given. Expansions come in template order, best fill first.

    ``vocabulary`` restricts each mask to the words validation could keep there (``vocabulary.py``).
    With ``fills_per_mask`` set, a multi-mask template is first searched with a beam of ``first_beam``
    (a pass per beam row per mask is what a multi-mask fill costs) and only a template still short of
    its fills after validating those is searched again with ``beam_size``, its candidates already
    examined skipped: the search stops once the fills it needs are found. ``first_beam=None`` searches
    with ``beam_size`` at once. ``checks``: a user's own validation checks (``validate.Check``). ``slot``
    (with ``vocabulary``): the slot rule; a template it leaves without any fill in its last search is
    counted in ``stats.slot``. ``spread``: prefer fills whose words no earlier fill of this call inserted
    (``validate.select``), no repeated word above ``spread_cap`` of the call's expansions when given.
    ``polarity_exempt``: where an inserted word may be polar (``validate.Polarity``). ``word_checks``: an
    ``--insertions`` mode's checks, run before the tagger (``validate.standard_checks``). ``intensify``
    (with ``vocabulary``): the templates whose mask is also filled from the intensifiers alone, up to
    ``fills_per_mask`` more fills each (``insertions.intensifier_sites``); the templates of
    ``intensifiers_only`` (ids) are filled from them alone. ``adjective_fills``: a template whose masks
    are all adjectives (or a conjunction between them) keeps at most this many fills (``None``:
    ``fills_per_mask`` alone bounds them). ``seed_tags``: the seeds' tags already made
    (``validate.tag_seeds``), shared by every validation of the call and filled in place.
    """
    if fills_per_mask is not None and fills_per_mask < 1:
        raise ValueError("fills_per_mask must be at least 1 (or None for all valid fills)")
    stats = stats if stats is not None else FillStats()
    kept_texts: dict[str, set[str]] = {}  # across chunks, so duplicates are seen run-wide
    used_words = Spread(spread_cap) if spread else None  # likewise, words kept
    seed_tags = {} if seed_tags is None else seed_tags  # likewise, each seed tagged once
    widths = [beam_size]
    if fills_per_mask is not None and first_beam is not None and first_beam < beam_size:
        widths = [first_beam, beam_size]

    def validated(
        group: list[MaskedTemplate], fills: list[list[Suggestion]], room: list[int]
    ) -> list[list[TestCase]]:
        return _validate_grouped(
            group, fills, cases_by_id, lexicon, requirement, room, stats=stats, kept_texts=kept_texts,
            fluency=fluency, context=context, checks=checks, spread=used_words,
            polarity_exempt=polarity_exempt, word_checks=word_checks, seed_tags=seed_tags,
        )  # fmt: skip

    iterator = iter(templates)
    while chunk := list(islice(iterator, _TEMPLATES_PER_CHUNK)):
        stats.templates += len(chunk)
        usable = [t for t in chunk if _fillable(t, cases_by_id)]
        special = [t for t in usable if mlm.has_special_token(t.parse.text)]
        if special:
            log.warning(
                "%d template(s) of seeds holding a special token of %s skipped", len(special), mlm.identity
            )
            usable = [t for t in usable if not mlm.has_special_token(t.parse.text)]
            stats.special_token += len(special)
        stats.unfillable += len(chunk) - len(usable)
        wanted = [_wanted(t, fills_per_mask or top_n, adjective_fills) for t in usable]
        kept: list[list[TestCase]] = [[] for _ in usable]
        seen: list[set[tuple[str, ...]]] = [set() for _ in usable]
        todo = [i for i, t in enumerate(usable) if t.id not in intensifiers_only]
        given_up: set[int] = set()
        for round_, width in enumerate(widths):
            if round_ > 0:  # a wider beam changes nothing for a single mask
                todo = [i for i in todo if len(kept[i]) < wanted[i] and len(usable[i].masks) > 1]
            if not todo:
                break
            group = [usable[i] for i in todo]
            found = mlm.suggest(group, width, top_n, batch_size=batch_size, vocabulary=vocabulary, slot=slot)
            # given up by the slot rule: counted once, after the last search of the template (a wider beam
            # may get past a later mask; a given-up first mask costs it one row)
            given_up.update(i for i, fills in zip(todo, found) if fills is None)
            given_up.difference_update(i for i, fills in zip(todo, found) if fills is not None)
            fresh = [[s for s in fills or () if s[0] not in seen[i]] for i, fills in zip(todo, found)]
            for i, fills in zip(todo, fresh):
                seen[i].update(words for words, _ in fills)
            more = validated(group, fresh, [wanted[i] - len(kept[i]) for i in todo])
            for i, cases in zip(todo, more):
                kept[i].extend(cases)
        sites = [i for i, t in enumerate(usable) if intensify and intensify(t, cases_by_id[t.case_id])]
        if sites and vocabulary is not None:
            intensified = mlm.suggest_texts(
                [mlm.masked_text(usable[i]) for i in sites], beam_size, top_n, batch_size=batch_size,
                tags=[(INTENSIFIER,)] * len(sites), vocabulary=vocabulary,
            )  # fmt: skip
            fresh = [[s for s in fills if s[0] not in seen[i]] for i, fills in zip(sites, intensified)]
            more = validated([usable[i] for i in sites], fresh, [wanted[i] for i in sites])
            for i, cases in zip(sites, more):
                kept[i].extend(cases)
        stats.slot += len(given_up)
        yield from (case for cases in kept for case in cases)


def _wanted(template: MaskedTemplate, fills: int, adjective_fills: int | None) -> int:
    """The fills a template keeps: ``adjective_fills`` at most where it inserts only adjectives, joined by a
    conjunction or not ("[long and] watchable": every fill would repeat the "and")."""
    tags = set(template.tags)
    if adjective_fills is not None and tags & ADJECTIVE_TAGS and tags <= ADJECTIVE_TAGS | {"CC"}:
        return min(fills, adjective_fills)
    return fills


def _fillable(template: MaskedTemplate, cases_by_id: dict[str, TestCase]) -> bool:
    case = cases_by_id.get(template.case_id)
    if case is None:
        log.warning("template %s: seed case %s unknown; skipped", template.id, template.case_id)
        return False
    if template.parse.text != case.text:
        raise ValueError(f"template {template.id}: parsed text differs from the text of case {case.id}")
    return bool(template.masks) and set(template.tags) <= WORD_TAGS


def validate(
    templates: Sequence[MaskedTemplate],
    suggestions: Sequence[Sequence[Suggestion]],
    cases_by_id: dict[str, TestCase],
    lexicon: NeutralLexicon,
    requirement: Requirement,
    *,
    fills_per_mask: int | None = 1,
    stats: FillStats | None = None,
    kept_texts: dict[str, set[str]] | None = None,
    fluency: Fluency | None = None,
    context: FunctionPairs | None = None,
    checks: Sequence[Check] = (),
) -> list[TestCase]:
    """The valid fills of each template (``suggestions[i]`` for ``templates[i]``, best first) as cases.

    Candidates are examined best first in waves (2, 4, 8, ... times ``fills_per_mask`` per template
    still short of it), each wave tagged (and fluency-scored) in one batch, so a template that finds its
    fill early costs little. ``kept_texts`` (seed id -> texts kept) is updated in place, to drop
    duplicates across calls. ``checks`` are a user's own (``validate.Check``), run after the standard ones
    and before fluency.
    """
    if fills_per_mask is not None and fills_per_mask < 1:
        raise ValueError("fills_per_mask must be at least 1 (or None for all valid fills)")
    wanted = fills_per_mask or max(map(len, suggestions), default=0)
    kept = _validate_grouped(
        templates, suggestions, cases_by_id, lexicon, requirement, [wanted] * len(templates),
        stats=stats, kept_texts=kept_texts, fluency=fluency, context=context, checks=checks,
    )  # fmt: skip
    return [case for cases in kept for case in cases]


def _validate_grouped(
    templates: Sequence[MaskedTemplate],
    suggestions: Sequence[Sequence[Suggestion]],
    cases_by_id: dict[str, TestCase],
    lexicon: NeutralLexicon,
    requirement: Requirement,
    room: Sequence[int],
    *,
    stats: FillStats | None = None,
    kept_texts: dict[str, set[str]] | None = None,
    fluency: Fluency | None = None,
    context: FunctionPairs | None = None,
    checks: Sequence[Check] = (),
    spread: Counter[str] | None = None,
    polarity_exempt: Callable[[Candidate, int], bool] | None = None,
    word_checks: Sequence[Check] = (),
    seed_tags: dict[str, list] | None = None,
) -> list[list[TestCase]]:
    """``validate`` with the fills still wanted per template (``room``), kept fills per template."""
    kept_texts = kept_texts if kept_texts is not None else {}
    seeds = [cases_by_id[t.case_id] for t in templates]
    every_check = standard_checks(
        lexicon, requirement, kept_texts, context, checks, polarity_exempt, word_checks
    )
    kept = select(
        templates,
        suggestions,
        seeds,
        every_check,
        room,
        kept_texts,
        stats=stats,
        fluency=fluency,
        spread=spread,
        seed_tags=seed_tags,
    )
    return [[_expansion(c, extra) for c, extra in fills] for fills in kept]


def _expansion(c: Candidate, extra: dict[str, Any] | None = None) -> TestCase:
    """The expanded case: the seed with the inserted words, its editable spans moved past them."""
    template, seed = c.template, c.seed
    offsets = template.parse.offsets
    # Where each word went in the seed text, and how many characters it added (the word and one space).
    insertions = [
        (offsets[index][0] if index < len(offsets) else offsets[-1][1], len(word) + 1)
        for (index, _), word in zip(template.masks, c.words)
    ]
    # seed tokens lower-cased by ``recase``: their offsets in the expansion's text
    lowered = [
        offsets[index][0] + sum(size for at, size in insertions if at <= offsets[index][0])
        for index in c.lower
    ]
    editable = tuple(
        (
            start + sum(size for at, size in insertions if at < start),
            end + sum(size for at, size in insertions if at <= end),
        )
        for start, end in seed.editable
    )
    return TestCase(
        id=f"{seed.id}-x{content_hash(c.text)[:10]}",
        capability=seed.capability,
        kind=EXPANSION,
        inputs=as_inputs(c.text),
        expected=seed.expected,
        test_type=seed.test_type,
        label=seed.label,
        seed_id=seed.id,
        editable=editable,
        provenance={
            **seed.provenance,
            "production": {"lhs": template.lhs, "from": list(template.rhs_from), "to": list(template.rhs_to)},
            "inserted": [
                {"word": word, "tag": tag, "offset": start}
                for word, tag, start in zip(c.words, template.tags, c.starts)
            ],
            "mlm_score": c.score,
            "template_score": template.score,
            "template_id": template.id,
            **({"lowered": lowered} if lowered else {}),
            **(extra or {}),
        },
    )
