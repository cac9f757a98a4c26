"""Fill stage: masked-LM suggestions for masked templates (``mlm.MaskedLM``), validation, and the expanded
test cases.

Validation (the original's checks with their bugs fixed):

1. duplicate: the filled text equals the seed's text or a text already kept for the same seed;
2. polarity: every inserted word must be neutral in the lexicon, looked up lower-cased with the coarse
   POS of its mask's tag (the original looked words up case-sensitively with spaCy's isolated-word POS),
   and never a negation ("not", "never", ...: ``lexicon.NEGATIONS``), which flips the sentiment of what it
   scopes over even where a lexicon, like the opinion lexicon, calls it neutral.
   The POS check below makes that tag the word's tag in context for every kept fill; checking polarity
   first means only neutral candidates need tagging;
4. doubled: an inserted word repeats a neighbouring word ("a kind kind of film");
5. pos: every inserted word, tagged in the filled sentence, must get its mask's tag (the original tagged
   each word in isolation); phrase-level masks can never match and are skipped before the MLM is called.
   A lower-case fill that the tagger knows only as a proper noun when capitalised ("york", "jones") is a
   proper noun: it fails any other tag, and for an ``NNP``/``NNPS`` mask it is capitalised before tagging;
   any other fill of a proper-noun mask must be capitalised to pass (a lower-case word is not a name, and
   capitalising an arbitrary word would only make the tagger call it one);
6. context (when ``context.FunctionPairs`` are given): an inserted preposition, "to", conjunction or
   determiner next to another function word must make a word pair the reference treebank has ("out of"
   yes, "in of" and "and but" no): the grammar's productions are context-free, the sentence is not;
7. requirement: the filled text must still meet the seed's capability requirement;
8. fluency (when a ``fluency.Fluency`` is given): the masked LM's pseudo-log-likelihood around the
   insertion must not fall more than its threshold below the seed's (``fluency.py``); after
   ``FLUENCY_TRIES`` fluency rejections a template is given up (the place, not the word, is at fault).

Casing (fix *casing*, for uncased masked LMs): fills are re-cased for their position before any check
(``recase``): a lone "i" is "I"; a word inserted before a capitalised sentence-initial token (the first of
a sentence, or the first inside an opening quote) is capitalised and that token lower-cased, unless it is
"I", an acronym, or tagged as a proper noun in the seed.

Seeds whose text holds one of the masked LM's special tokens (``[MASK]``, ``<mask>``, ``[CLS]``,
``</s>``, ...) are never sent to it: their templates are counted as ``special_token`` and skipped, since
a literal mask token would be filled as a mask.

The checks run in that order and a rejection is counted under the first that fails. Candidates are
examined in score order and the first ``fills_per_mask`` valid ones per template are kept (ALiCT's HEAD
kept one; its older runs kept all, ``fills_per_mask=None``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Protocol

from ..records import EXPANSION, MaskedTemplate, Parse, TestCase, opens
from ..sources.lexicon import NEGATIONS
from ..store import content_hash
from ..tagging import (
    PROPER_TAGS,
    coarse_pos,
    is_single_token,
    known_proper_noun,
    pos_tag_from,
    pos_tag_sents,
    proper_noun,
    tokenize,
)
from .context import FunctionPairs
from .fluency import Fluency, Known
from .mlm import MaskedLM, Suggestion
from .vocabulary import VocabularyFilter

log = logging.getLogger(__name__)

# Penn Treebank word-level tags: the only mask tags a single inserted word can satisfy.
WORD_TAGS = frozenset(
    "CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM TO UH "
    "VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB".split()
)
REASONS = ("duplicate", "polarity", "doubled", "pos", "context", "requirement", "fluency")
_TEMPLATES_PER_CHUNK = 256
FIRST_BEAM = 4  # beam of a multi-mask template's first search (``fill``)
# Fluency rejections after which a template is given up. When a fill passes fluency it is almost always
# one of a template's first three candidates that reach it (all 73 kept of LC9 on the alict60 workload:
# 68 the first, none after the third), while a template whose position no word fits went on through all
# its suggestions, most of the fluency filter's cost.
FLUENCY_TRIES = 4

Requirement = Callable[[TestCase, str], bool]


class NeutralLexicon(Protocol):
    def is_neutral(self, word: str, pos: str | None) -> bool: ...


@dataclass
class FillStats:
    """Counts for a run's closing table. Every proposed candidate is either kept, rejected for the first
    check it failed, or unused (ranked below the fills already kept for its template)."""

    templates: int = 0
    unfillable: int = 0  # templates never sent to the MLM: phrase-level mask, no masks, or unknown seed
    special_token: int = 0  # templates of seeds holding a special token of the MLM (also unfillable)
    proposed: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    unused: int = 0
    kept: int = 0

    def as_dict(self) -> dict[str, int]:
        rejected = {f"rejected_{reason}": self.rejected[reason] for reason in REASONS}
        return {
            "templates": self.templates,
            "unfillable": self.unfillable,
            "special_token": self.special_token,
            "proposed": self.proposed,
            **rejected,
            "unused": self.unused,
            "kept": self.kept,
        }


def fill(
    templates: Iterable[MaskedTemplate],
    cases_by_id: dict[str, TestCase],
    mlm: MaskedLM,
    lexicon: NeutralLexicon,
    requirement: Requirement,
    *,
    fills_per_mask: int | None = 1,
    beam_size: int = 100,
    top_n: int = 60,
    batch_size: int = 64,
    stats: FillStats | None = None,
    fluency: Fluency | None = None,
    context: FunctionPairs | None = None,
    vocabulary: VocabularyFilter | None = None,
    first_beam: int | None = FIRST_BEAM,
) -> Iterator[TestCase]:
    """Expand seed cases: fill each template's masks with the MLM and yield the valid fills as cases.

    ``requirement(seed_case, new_text)`` re-checks the seed's capability on the filled text. Counts are
    added to ``stats`` when given. Expansions come in template order, best fill first.

    ``vocabulary`` restricts each mask to the words validation could keep there (``vocabulary.py``).
    With ``fills_per_mask`` set, a multi-mask template is first searched with a beam of ``first_beam``
    (a pass per beam row per mask is what a multi-mask fill costs) and only a template still short of
    its fills after validating those is searched again with ``beam_size``, its candidates already
    examined skipped: the search stops once the fills it needs are found. ``first_beam=None`` searches
    with ``beam_size`` at once.
    """
    if fills_per_mask is not None and fills_per_mask < 1:
        raise ValueError("fills_per_mask must be at least 1 (or None for all valid fills)")
    stats = stats if stats is not None else FillStats()
    kept_texts: dict[str, set[str]] = {}  # across chunks, so duplicates are seen run-wide
    widths = [beam_size]
    if fills_per_mask is not None and first_beam is not None and first_beam < beam_size:
        widths = [first_beam, beam_size]
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
        wanted = fills_per_mask or top_n
        kept: list[list[TestCase]] = [[] for _ in usable]
        seen: list[set[tuple[str, ...]]] = [set() for _ in usable]
        todo = list(range(len(usable)))
        for round_, width in enumerate(widths):
            if round_ > 0:  # a wider beam changes nothing for a single mask
                todo = [i for i in todo if len(kept[i]) < wanted and len(usable[i].masks) > 1]
            if not todo:
                break
            group = [usable[i] for i in todo]
            found = mlm.suggest(group, width, top_n, batch_size=batch_size, vocabulary=vocabulary)
            fresh = [[s for s in fills if s[0] not in seen[i]] for i, fills in zip(todo, found)]
            for i, fills in zip(todo, fresh):
                seen[i].update(words for words, _ in fills)
            more = _validate_grouped(
                group, fresh, cases_by_id, lexicon, requirement, [wanted - len(kept[i]) for i in todo],
                stats=stats, kept_texts=kept_texts, fluency=fluency, context=context,
            )  # fmt: skip
            for i, cases in zip(todo, more):
                kept[i].extend(cases)
        yield from (case for cases in kept for case in cases)


def _fillable(template: MaskedTemplate, cases_by_id: dict[str, TestCase]) -> bool:
    case = cases_by_id.get(template.case_id)
    if case is None:
        log.warning("template %s: seed case %s unknown; skipped", template.id, template.case_id)
        return False
    if template.parse.text != case.text:
        raise ValueError(f"template {template.id}: parsed text differs from the text of case {case.id}")
    return bool(template.masks) and set(template.tags) <= WORD_TAGS


@dataclass(frozen=True, slots=True)
class _Candidate:
    template: int  # index into the templates being validated
    words: tuple[str, ...]
    score: float
    text: str
    starts: tuple[int, ...]
    lower: tuple[int, ...] = ()  # seed tokens lower-cased by ``recase``


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
) -> list[TestCase]:
    """The valid fills of each template (``suggestions[i]`` for ``templates[i]``, best first) as cases.

    Candidates are examined best first in waves (2, 4, 8, ... times ``fills_per_mask`` per template
    still short of it), each wave tagged (and fluency-scored) in one batch, so a template that finds its
    fill early costs little. ``kept_texts`` (seed id -> texts kept) is updated in place, to drop
    duplicates across calls.
    """
    if fills_per_mask is not None and fills_per_mask < 1:
        raise ValueError("fills_per_mask must be at least 1 (or None for all valid fills)")
    wanted = fills_per_mask or max(map(len, suggestions), default=0)
    kept = _validate_grouped(
        templates, suggestions, cases_by_id, lexicon, requirement, [wanted] * len(templates),
        stats=stats, kept_texts=kept_texts, fluency=fluency, context=context,
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
) -> list[list[TestCase]]:
    """``validate`` with the fills still wanted per template (``room``), kept fills per template."""
    stats = stats if stats is not None else FillStats()
    kept_texts = kept_texts if kept_texts is not None else {}
    wanted = max(room, default=0)
    seeds = [cases_by_id[t.case_id] for t in templates]
    kept: list[list[TestCase]] = [[] for _ in templates]
    examined = [0] * len(templates)
    pending = [i for i, fills in enumerate(suggestions) if fills and room[i] > 0]
    stats.proposed += sum(map(len, suggestions))
    window = 2 * wanted  # the tagger works sentence by sentence: small first waves waste least
    seed_tags: dict[str, list] = {}
    disfluent: Counter[int] = Counter()  # fluency rejections per template
    while pending:
        _tag_seeds([templates[i].parse for i in pending], seed_tags)
        wave = [
            _candidate(i, templates[i], words, score, seed_tags[templates[i].parse.text])
            for i in pending
            for words, score in suggestions[i][examined[i] : examined[i] + window]
        ]
        verdicts = _checks(wave, templates, seeds, lexicon, requirement, kept_texts, seed_tags, context)
        scores: dict[int, float] = {}
        if fluency is not None:
            left = {i: room[i] - len(kept[i]) for i in pending}
            _check_fluency(wave, verdicts, templates, seeds, left, fluency, scores, disfluent)
        halted: set[int] = set()  # templates that reached a candidate not scored yet: next wave
        for n, c in enumerate(wave):
            template, seed = templates[c.template], seeds[c.template]
            if len(kept[c.template]) >= room[c.template] or c.template in halted:
                continue
            # a text kept earlier in this wave is a duplicate too
            verdict = "duplicate" if c.text in kept_texts.get(seed.id, ()) else verdicts[n]
            if verdict is None and fluency is not None and n not in scores:
                halted.add(c.template)
                continue
            examined[c.template] += 1
            if verdict is not None:
                stats.rejected[verdict] += 1
                continue
            extra = {}
            if fluency is not None:
                extra["fluency"] = {
                    "pll_delta": scores[n],
                    "window": fluency.scorer.window,
                    "threshold": fluency.threshold,
                }
            kept_texts.setdefault(seed.id, set()).add(c.text)
            kept[c.template].append(_expansion(template, seed, c, extra))
            stats.kept += 1
        pending = [
            i
            for i in pending
            if len(kept[i]) < room[i] and examined[i] < len(suggestions[i]) and disfluent[i] < FLUENCY_TRIES
        ]
        window *= 2
    stats.unused += sum(len(fills) - n for fills, n in zip(suggestions, examined))
    return kept


def _check_fluency(
    wave: Sequence[_Candidate],
    verdicts: list[str | None],
    templates: Sequence[MaskedTemplate],
    seeds: Sequence[TestCase],
    room: dict[int, int],
    fluency: Fluency,
    scores: dict[int, float],
    disfluent: Counter[int],
) -> None:
    """The fluency check of the candidates that passed the others, best first and only as many per
    template as it still has ``room`` for: a candidate that fails lets the next one be scored, in batched
    rounds, so candidates ranked after a template's kept fills are never scored, nor any after its
    ``FLUENCY_TRIES``-th rejection. Sets ``scores``, marks failures in ``verdicts`` and counts them per
    template in ``disfluent``."""
    passing = [n for n, verdict in enumerate(verdicts) if verdict is None]
    while True:
        accepted: Counter[int] = Counter()
        take = []
        for n in passing:  # wave order is score order within a template
            t = wave[n].template
            if n in scores:
                accepted[t] += verdicts[n] is None
            elif accepted[t] < room[t] and disfluent[t] < FLUENCY_TRIES:
                take.append(n)
                accepted[t] += 1  # counted as if it passed, until scored
        if not take:
            return
        pairs = [(wave[n].text, seeds[wave[n].template].text) for n in take]
        deltas = fluency.scorer.deltas(pairs, [_fill_log_prob(wave[n], templates) for n in take])
        for n, delta in zip(take, deltas):
            scores[n] = delta
            if not fluency.keeps(delta):
                verdicts[n] = "fluency"
                disfluent[wave[n].template] += 1


def _fill_log_prob(candidate: _Candidate, templates: Sequence[MaskedTemplate]) -> Known | None:
    """A one-mask candidate's template and score: the fill search's log-probability of its word at the
    mask, which the fluency scorer takes for that token's PLL instead of computing it again."""
    template = templates[candidate.template]
    return (template, candidate.score) if len(template.masks) == 1 else None


def _checks(
    wave: Sequence[_Candidate],
    templates: Sequence[MaskedTemplate],
    seeds: Sequence[TestCase],
    lexicon: NeutralLexicon,
    requirement: Requirement,
    kept_texts: dict[str, set[str]],
    seed_tags: dict[str, list],
    context: FunctionPairs | None = None,
) -> list[str | None]:
    """For each candidate, the first check it fails (None: it passes all but fluency). Only candidates
    still passing are tagged, in one batch, and only those passing the tags meet the requirement check."""
    verdicts: list[str | None] = []
    for c in wave:
        template, seed = templates[c.template], seeds[c.template]
        if c.text == seed.text or c.text in kept_texts.get(seed.id, ()):
            verdicts.append("duplicate")
        elif not all(
            w.lower() not in NEGATIONS and lexicon.is_neutral(w.lower(), coarse_pos(tag))
            for w, tag in zip(c.words, template.tags)
        ):
            verdicts.append("polarity")
        elif _doubled(template, c.words):
            verdicts.append("doubled")
        else:
            verdicts.append(None)
    to_tag = [n for n, verdict in enumerate(verdicts) if verdict is None]
    for n, tags in zip(to_tag, _inserted_tags([wave[n] for n in to_tag], templates, seed_tags)):
        c = wave[n]
        template = templates[c.template]
        if tags != template.tags or any(
            (tag in PROPER_TAGS and not w[:1].isupper()) or (proper_noun(w) and tag not in PROPER_TAGS)
            for w, tag in zip(c.words, template.tags)
        ):
            verdicts[n] = "pos"
        elif context is not None and not all(
            context.allows(tag, left, word.lower(), right)
            for (left, word, right), tag in zip(_neighbours(template, c.words), template.tags)
        ):
            verdicts[n] = "context"
        elif not requirement(seeds[c.template], c.text):
            verdicts[n] = "requirement"
    return verdicts


_QUOTES = ('"', "``", "'", "`")


def recase(
    template: MaskedTemplate, words: Sequence[str], sentences: Sequence[tuple[int, int, list[str]]]
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Fix *casing*: ``words`` re-cased for where they go, and the seed tokens to lower-case.

    An uncased masked LM suggests lower-case words: a lone "i" becomes "I", a known proper noun ("york",
    ``tagging.proper_noun``) for a proper-noun mask is capitalised, and the first word inserted before a
    capitalised sentence-initial token (the first of a sentence, or the first after an opening quote) is
    capitalised while that token is lower-cased, unless it is "I", an acronym or a proper noun
    (``_keeps_capital``; ``sentences``: token range and tags per sentence of the seed). Returns the words
    and the token indices to lower-case (``MaskedTemplate.render``'s ``lower``).
    """
    parse = template.parse
    tokens = parse.tokens
    starts = {a for a, _, _ in sentences}
    proper = {a + k for a, _, tags in sentences for k, tag in enumerate(tags) if tag in PROPER_TAGS}
    out: list[str] = []
    lower: list[int] = []
    previous = None
    for (index, tag), word in zip(template.masks, words):
        if word == "i":
            word = "I"
        elif tag in PROPER_TAGS and proper_noun(word):
            word = word[:1].upper() + word[1:]
        if index != previous and index < len(tokens) and _sentence_initial(parse, index, starts):
            token = tokens[index]
            if token[:1].isupper():
                word = word[:1].upper() + word[1:]
                if not _keeps_capital(tokens, index, proper):
                    lower.append(index)
        previous = index
        out.append(word)
    return tuple(out), tuple(dict.fromkeys(lower))


def _keeps_capital(tokens: Sequence[str], index: int, proper: set[int]) -> bool:
    """Whether a capitalised sentence-initial token is written so anywhere: "I", an acronym, a word the
    tagger's dictionary knows as a proper noun ("Paris"), or a token tagged as one that starts a name
    ("Samuel Beckett", "Jacquot's"). The tagger calls most capitalised sentence-initial words proper
    nouns ("Mild, meandering ..."), so its tag alone does not decide."""
    token = tokens[index]
    if token == "I" or (len(token) > 1 and token.isupper()) or known_proper_noun(token):
        return True
    following = tokens[index + 1] if index + 1 < len(tokens) else ""
    return index in proper and (following[:1].isupper() or following in ("'s", "’s"))


def _sentence_initial(parse: Parse, index: int, starts: set[int]) -> bool:
    if index in starts:
        return True
    return parse.tokens[index - 1] in _QUOTES and opens(parse.text, parse.offsets[index - 1][1])


def _neighbours(template: MaskedTemplate, words: Sequence[str]) -> list[tuple[str | None, str, str | None]]:
    """Each inserted word, lower-cased, with the lower-cased tokens left and right of it in the filled
    text (None at an edge)."""
    filled = [token.lower() for token in template.parse.tokens]
    positions = []
    for n, ((index, _), word) in enumerate(zip(template.masks, words)):
        filled.insert(index + n, word.lower())
        positions.append(index + n)
    return [
        (filled[p - 1] if p > 0 else None, filled[p], filled[p + 1] if p + 1 < len(filled) else None)
        for p in positions
    ]


def _doubled(template: MaskedTemplate, words: Sequence[str]) -> bool:
    """Fix *doubled words*: whether an inserted word repeats the word next to it ("kind kind")."""
    return any(word in (left, right) for left, word, right in _neighbours(template, words))


def _candidate(
    i: int, template: MaskedTemplate, words: Sequence[str], score: float, sentences: list
) -> _Candidate:
    recased, lower = recase(template, words, sentences)
    return _Candidate(i, recased, score, *template.render(recased, lower), lower)


def _tag_seeds(parses: Iterable[Parse], seed_tags: dict[str, list]) -> None:
    """Tag, once and in one batch, the seed texts not in ``seed_tags`` (text -> per sentence: token range
    and tags)."""
    by_text = {parse.text: parse for parse in parses if parse.text not in seed_tags}
    new = sorted(by_text)
    sentences = {text: tokenize(text).sentences for text in new}
    tagged = iter(pos_tag_sents([by_text[text].tokens[a:b] for text in new for a, b in sentences[text]]))
    for text in new:
        seed_tags[text] = [(a, b, next(tagged)) for a, b in sentences[text]]


def _inserted_tags(
    candidates: Sequence[_Candidate], templates: Sequence[MaskedTemplate], seed_tags: dict[str, list]
) -> list[tuple[str | None, ...]]:
    """The Penn tag of each inserted word, tagged in its sentence of the filled text.

    The filled sentence is the seed's tokens with the words inserted (and the tokens ``recase`` lowered),
    so only the stretch around the insertions is tagged again (``tagging.pos_tag_from``: exactly what
    tagging the whole sentence gives); the seeds' own tags come from ``seed_tags`` (``_tag_seeds``).
    None where the tokenizer would not keep an inserted word whole ("cannot").
    """
    out: list[tuple[str | None, ...]] = []
    for c in candidates:
        template = templates[c.template]
        if not all(is_single_token(word) for word in c.words):
            out.append((None,) * len(c.words))
            continue
        first = template.masks[0][0]
        ranges = seed_tags[template.parse.text]
        a, b, tags = next((r for r in ranges if r[0] <= first < r[1]), ranges[-1])
        words = list(template.parse.tokens[a:b])
        for index in c.lower:
            if a <= index < b:
                words[index - a] = words[index - a][:1].lower() + words[index - a][1:]
        positions = []
        for (index, _), word in zip(template.masks, c.words):
            positions.append(index - a + len(positions))
            words.insert(positions[-1], word)
        start = max(0, positions[0] - 2)
        new_tags = pos_tag_from(words, tags[:start], positions[-1] + 1)
        out.append(tuple(new_tags[p - start] for p in positions))
    return out


def _expansion(
    template: MaskedTemplate, seed: TestCase, c: _Candidate, extra: dict[str, Any] | None = None
) -> TestCase:
    """The expanded case: the seed with the inserted words, its editable spans moved past them."""
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
        inputs=c.text,
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
