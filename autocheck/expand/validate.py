"""Validation of filled templates: which masked-LM fills become expansions.

Validation (the original's checks with their bugs fixed):

1. duplicate: the filled text equals the seed's text or a text already kept for the same seed;
2. polarity: every inserted word must be neutral in the lexicon, looked up lower-cased with the coarse
   POS of its mask's tag (the original looked words up case-sensitively with spaCy's isolated-word POS),
   and never a negation ("not", "never", ...: ``lexicon.NEGATIONS``), which flips the sentiment of what it
   scopes over even where a lexicon, like the opinion lexicon, calls it neutral. The lexicon is the one
   ``insertions.insertion_lexicon`` gives: under ``phrases`` SentiWordNet's gloss scores of degree and
   stance adverbs are set aside.
   The POS check below makes that tag the word's tag in context for every kept fill; checking polarity
   first means only neutral candidates need tagging;
3. doubled: an inserted word repeats a neighbouring word ("a kind kind of film");
   then the word checks of the ``--insertions`` mode (``insertions.checks_for``: determinative, adverb,
   word order, phrase, dictionary, identity term, polarity item, article), which read the seed's tags and
   the masks' and tag nothing: run before the tagger and the requirement, which tag every candidate they
   see, they spare them the candidates the word checks reject (the same expansions, the rejections
   counted under the word checks);
4. pos: every inserted word, tagged in the filled sentence, must get its mask's tag (the original tagged
   each word in isolation); phrase-level masks can never match and are skipped before the MLM is called.
   A lower-case fill that the tagger knows only as a proper noun when capitalised ("york", "jones") is a
   proper noun: it fails any other tag, and for an ``NNP``/``NNPS`` mask it is capitalised before tagging;
   any other fill of a proper-noun mask must be capitalised to pass (a lower-case word is not a name, and
   capitalising an arbitrary word would only make the tagger call it one);
5. context (when ``context.FunctionPairs`` are given): an inserted preposition, "to", conjunction or
   determiner next to another function word must make a word pair the reference treebank has ("out of"
   yes, "in of" and "and but" no): the grammar's productions are context-free, the sentence is not;
6. requirement: the filled text must still meet the seed's capability requirement;
   A user's own checks (``CHECKS``) come next, then
7. agreement (``generate --agreement on``; ``agreement.py``): a/an, determiner-noun and subject-verb
   number agreement kept by the inserted words;
8. reparse (``generate --reparse on``; ``reparse.py``): the filled text parsed again must
   contain the seed's tree, with the template's production at the insertion point;
9. fluency (when a ``fluency.Fluency`` is given): the masked LM's pseudo-log-likelihood around the
   insertion must not fall more than its threshold below the seed's (``fluency.py``); after
   ``FLUENCY_TRIES`` fluency rejections a template is given up (the place, not the word, is at fault).

Casing (fix *casing*, for uncased masked LMs): fills are re-cased for their position before any check
(``recase``): a lone "i" is "I"; a word inserted before a capitalised sentence-initial token (the first of
a sentence, or the first inside an opening quote) is capitalised and that token lower-cased, unless it is
"I", an acronym, or tagged as a proper noun in the seed.

The checks run in that order, each on the candidates every earlier one kept (``Check``: a name and one
batched call), and a rejection is counted under the first that fails; the parser's and the masked LM's
checks, the most expensive, come last. Candidates are
examined in score order and the first ``fills_per_mask`` valid ones per template are kept (ALiCT's HEAD
kept one; its older runs kept all, ``fills_per_mask=None``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from ..records import MaskedTemplate, Parse, TestCase, opens
from ..registry import Registry
from ..sources.lexicon import NEGATIONS
from ..store import InputError
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

if TYPE_CHECKING:  # types only: importing them imports torch, which a parent that forks must not
    from .fluency import Fluency, Known
    from .mlm import Suggestion

REASONS = (
    "duplicate", "polarity", "doubled", "pos", "context", "requirement", "agreement", "reparse", "fluency",
)  # fmt: skip
# Fluency rejections after which a template is given up. When a fill passes fluency it is almost always
# one of a template's first three candidates that reach it, while a template whose position no word fits
# went on through all its suggestions, most of the fluency filter's cost.
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
    slot: int = 0  # templates the slot rule left without any fill (slot.py): none of theirs was proposed
    proposed: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    unused: int = 0
    kept: int = 0

    def as_dict(self) -> dict[str, int]:
        reasons = [*REASONS, *sorted(set(self.rejected) - set(REASONS))]  # a user's checks after ours
        rejected = {f"rejected_{reason}": self.rejected[reason] for reason in reasons}
        return {
            "templates": self.templates,
            "unfillable": self.unfillable,
            "special_token": self.special_token,
            "slot": self.slot,
            "proposed": self.proposed,
            **rejected,
            "unused": self.unused,
            "kept": self.kept,
        }


@dataclass(frozen=True, slots=True)
class Candidate:
    """One fill of one template, re-cased for where it goes (``recase``) and rendered."""

    index: int  # the template's position among those being validated
    template: MaskedTemplate
    seed: TestCase
    seed_tags: list  # the seed's sentences: token range and Penn tags of each (``tag_seeds``)
    words: tuple[str, ...]
    score: float
    text: str
    starts: tuple[int, ...]  # character offset of each inserted word in ``text``
    lower: tuple[int, ...] = ()  # seed tokens lower-cased by ``recase``

    @property
    def tags(self) -> tuple[str, ...]:
        """The Penn tag of each inserted word: its mask's."""
        return self.template.tags


@dataclass(frozen=True, slots=True)
class Proposed:
    """A whole sentence proposed for a seed (a model-guided search's step, a language model's rewrite), with
    no masked template behind it: ``words`` are the words it adds to the seed's and ``tags`` their Penn
    tags in the proposed sentence (``proposals`` finds both)."""

    seed: TestCase
    text: str
    words: tuple[str, ...]
    tags: tuple[str, ...]


class Check(Protocol):
    """A validation check: ``name`` is the reason a rejection is counted under (in the manifest as
    ``rejected_<name>``); ``passes`` answers for a batch of candidates at once (those every earlier check
    kept), True for each that passes."""

    name: str

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]: ...


class SentenceCheck(Protocol):
    """A check of whole proposed sentences (``Proposed``): ``name`` and ``passes`` as for ``Check``. The
    checks that read only a candidate's seed, text, added words and their tags are both: ``duplicate``,
    ``polarity``, ``requirement`` and a user's own that reads ``words`` (``sentence_checks``)."""

    name: str

    def passes(self, candidates: Sequence[Proposed]) -> list[bool]: ...


class Duplicate:
    """The filled text equals the seed's or a text already kept for the same seed (``kept_texts``: seed id
    -> texts kept, shared with the validation loop, which adds to it)."""

    name = "duplicate"

    def __init__(self, kept_texts: dict[str, set[str]]):
        self.kept_texts = kept_texts

    def passes(self, candidates: Sequence[Candidate | Proposed]) -> list[bool]:
        return [
            c.text != c.seed.text and c.text not in self.kept_texts.get(c.seed.id, ()) for c in candidates
        ]


class Polarity:
    """Every inserted word neutral in the lexicon for its mask's coarse POS, and never a negation; a
    template's word ``exempt`` says may be polar where it goes (``exempt(candidate, n)``: an
    intensifier of ``--insertions phrases`` or ``modifiers``, ``insertions.intensifies``) is left to the
    later checks."""

    name = "polarity"

    def __init__(self, lexicon: NeutralLexicon, exempt: Callable[[Candidate, int], bool] | None = None):
        self.lexicon = lexicon
        self.exempt = exempt

    def passes(self, candidates: Sequence[Candidate | Proposed]) -> list[bool]:
        return [
            all(
                w.lower() not in NEGATIONS
                and (
                    self.lexicon.is_neutral(w.lower(), coarse_pos(tag))
                    or (self.exempt is not None and not isinstance(c, Proposed) and self.exempt(c, n))
                )
                for n, (w, tag) in enumerate(zip(c.words, c.tags))
            )
            for c in candidates
        ]


class Doubled:
    """Fix *doubled words*: no inserted word repeats the word next to it ("kind kind")."""

    name = "doubled"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [not _doubled(c.template, c.words) for c in candidates]


class PartOfSpeech:
    """Every inserted word, tagged in its filled sentence (all candidates in one batch), gets its mask's
    tag; proper-noun masks take capitalised words, other masks no word known only as a name."""

    name = "pos"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [
            tags == c.template.tags
            and not any(
                (tag in PROPER_TAGS and not w[:1].isupper()) or (proper_noun(w) and tag not in PROPER_TAGS)
                for w, tag in zip(c.words, c.template.tags)
            )
            for c, tags in zip(candidates, _inserted_tags(candidates))
        ]


class Context:
    """An inserted function word next to another makes a word pair the reference treebank has."""

    name = "context"

    def __init__(self, pairs: FunctionPairs):
        self.pairs = pairs

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [
            all(
                self.pairs.allows(tag, left, word.lower(), right)
                for (left, word, right), tag in zip(_neighbours(c.template, c.words), c.template.tags)
            )
            for c in candidates
        ]


class MeetsRequirement:
    """The filled text still meets the seed's capability requirement. A word ``exempt`` lets be polar (an
    intensifier grading the adjective that carries the label, ``Polarity``) is read as absent: it only
    raises that adjective, which the requirement counts already ("a [terribly] funny film" is no mix of
    sentiments, though "terribly" alone is negative)."""

    name = "requirement"

    def __init__(self, requirement: Requirement, exempt: Callable[[Candidate, int], bool] | None = None):
        self.requirement = requirement
        self.exempt = exempt

    def passes(self, candidates: Sequence[Candidate | Proposed]) -> list[bool]:
        return [self.requirement(c.seed, self._read(c)) for c in candidates]

    def _read(self, c: Candidate | Proposed) -> str:
        if self.exempt is None or isinstance(c, Proposed):
            return c.text
        kept = [n for n in range(len(c.words)) if not self.exempt(c, n)]
        if len(kept) == len(c.words):
            return c.text
        template = replace(c.template, masks=tuple(c.template.masks[n] for n in kept))
        return template.render([c.words[n] for n in kept])[0]


# Validation checks, by name. autocheck's own (registered below: listed by ``autocheck plugins`` and
# ``doctor``) always run, built by ``standard_checks``; a user's own is a class (or any callable) taking no
# argument that makes a ``Check`` (and a ``SentenceCheck``, when it reads only ``words``), which
# ``generate --check NAME`` runs; a plug-in registers one through the entry-point group "autocheck.checks".
CHECKS: Registry[Callable[..., Check]] = Registry("checks", "validation check")
for _check in (Duplicate, Polarity, Doubled, PartOfSpeech, Context, MeetsRequirement):
    CHECKS.register(_check.name, _check)


def users_check(name: str) -> Callable[[], Check]:
    """What makes the user's check ``name`` (``--check``): a plug-in's; autocheck's own always run."""
    if CHECKS.origins().get(name) == "autocheck":
        raise InputError(
            f"--check {name}: autocheck's own check, which always runs; --check adds a plug-in's"
        )
    return CHECKS.get(name)


def standard_checks(
    lexicon: NeutralLexicon,
    requirement: Requirement,
    kept_texts: dict[str, set[str]],
    context: FunctionPairs | None = None,
    extra: Sequence[Check] = (),
    polarity_exempt: Callable[[Candidate, int], bool] | None = None,
    word_checks: Sequence[Check] = (),
) -> list[Check]:
    """The checks in the order they run (fluency, being the most expensive, comes after all of them):
    cheap word checks first (``word_checks``: an ``--insertions`` mode's, which need no tagging), then the
    tagger (one batch), the context pairs, the requirement (which tokenises and tags each whole text), and
    then ``extra`` (a user's own)."""
    polarity = Polarity(lexicon, polarity_exempt)
    checks: list[Check] = [Duplicate(kept_texts), polarity, Doubled(), *word_checks, PartOfSpeech()]
    if context is not None:
        checks.append(Context(context))
    checks.append(MeetsRequirement(requirement, polarity_exempt))
    names = {check.name for check in checks}
    for check in extra:
        if check.name in names or check.name == "fluency":
            raise ValueError(f"a validation check named {check.name!r} exists already")
        names.add(check.name)
        checks.append(check)
    return checks


def sentence_checks(
    lexicon: NeutralLexicon,
    requirement: Requirement,
    kept_texts: dict[str, set[str]],
    extra: Sequence[SentenceCheck] = (),
) -> list[SentenceCheck]:
    """The checks of whole proposed sentences, in ``standard_checks``' order: those of its checks that need
    no masked template (the doubled word, part-of-speech and context checks compare a fill with its
    template's masks), then ``extra`` (a user's own)."""
    return [Duplicate(kept_texts), Polarity(lexicon), MeetsRequirement(requirement), *extra]


def proposals(seed: TestCase, texts: Sequence[str]) -> list[Proposed]:
    """``texts`` proposed for ``seed``, each with the words it adds to the seed's (a token diff: what is
    inserted or replaces a seed word) tagged in the proposed sentence (all in one batch)."""
    seed_words = tokenize(seed.text).words
    words = [tokenize(text).words for text in texts]
    tagged = pos_tag_sents(words)
    out = []
    for text, tokens, tags in zip(texts, words, tagged):
        added = [
            i
            for op, _, _, j1, j2 in SequenceMatcher(a=seed_words, b=tokens, autojunk=False).get_opcodes()
            if op in ("insert", "replace")
            for i in range(j1, j2)
        ]
        out.append(Proposed(seed, text, tuple(tokens[i] for i in added), tuple(tags[i] for i in added)))
    return out


def first_failures(
    checks: Sequence[Check] | Sequence[SentenceCheck], wave: Sequence[Any]
) -> list[str | None]:
    """For each candidate (a fill, or a whole proposed sentence with ``sentence_checks``), the name of the
    first check it fails (None: it passes them all). Each check sees only the candidates every earlier one
    kept, in one call."""
    verdicts: list[str | None] = [None] * len(wave)
    for check in checks:
        alive = [n for n, verdict in enumerate(verdicts) if verdict is None]
        if not alive:
            break
        for n, ok in zip(alive, check.passes([wave[n] for n in alive])):
            if not ok:
                verdicts[n] = check.name
    return verdicts


class Spread(Counter[str]):
    """The words a fill call kept, counted (``select``'s ``spread``), and the most share of the call's
    expansions a repeated word may take (``cap``; None: no cap, the best repeat of a template that found
    nothing new is taken). With a cap such a template takes its least repeated fill, and none whose word
    has reached the cap: the masked LM's favourites ("very" before an adjective) filled 4.8 % of a suite
    though every fill call set them aside while another word fitted (docs/yield-history.md, round 5)."""

    def __init__(self, cap: float | None = None):
        super().__init__()
        self.cap = cap


def select(
    templates: Sequence[MaskedTemplate],
    suggestions: Sequence[Sequence[Suggestion]],
    seeds: Sequence[TestCase],
    checks: Sequence[Check],
    room: Sequence[int],
    kept_texts: dict[str, set[str]],
    *,
    stats: FillStats | None = None,
    fluency: Fluency | None = None,
    spread: Counter[str] | None = None,
    seed_tags: dict[str, list] | None = None,
) -> list[list[tuple[Candidate, dict[str, Any]]]]:
    """The valid fills of each template (``suggestions[i]`` for ``templates[i]``, best first, at most
    ``room[i]`` of them), each with what the fluency check recorded.

    ``spread`` (the words kept so far, lower-cased, counted; updated in place) spreads a suite over more
    words: a valid fill inserting a word already kept is set aside while its template may still find
    fills with new words, and the best of them is taken only when it finds none. The masked LM
    puts most of its mass on a few words ("real", "little", "just"), so the top fills of every template
    would otherwise repeat them across a suite (issue #35: ten words made half the expansions).
    A ``Spread`` with a cap also bounds each word's share of the call's expansions.

    Candidates are examined best first in waves (2, 4, 8, ... times the largest room, per template still
    short of its room), each wave checked (and fluency-scored) in one batch, so a template that finds its
    fill early costs little. ``kept_texts`` (seed id -> texts kept) is updated in place, to drop
    duplicates across calls; ``checks`` should include a ``Duplicate`` over the same dict. ``seed_tags``
    (``tag_seeds``'s, filled in place) lets calls share the seeds' tags: each seed is tagged once.
    """
    stats = stats if stats is not None else FillStats()
    wanted = max(room, default=0)
    kept: list[list[tuple[Candidate, dict[str, Any]]]] = [[] for _ in templates]
    examined = [0] * len(templates)
    pending = [i for i, fills in enumerate(suggestions) if fills and room[i] > 0]
    stats.proposed += sum(map(len, suggestions))
    window = 2 * wanted  # the tagger works sentence by sentence: small first waves waste least
    seed_tags = {} if seed_tags is None else seed_tags
    disfluent: Counter[int] = Counter()  # fluency rejections per template
    set_aside: list[list[tuple[Candidate, dict[str, Any]]]] = [[] for _ in templates]  # (``spread``)
    capped = spread.cap if isinstance(spread, Spread) else None

    def counted(c: Candidate) -> list[str]:  # the words ``spread`` counts
        return _spread_words(c, coordinators=capped is None)

    def keep(c: Candidate, extra: dict[str, Any]) -> None:
        kept_texts.setdefault(c.seed.id, set()).add(c.text)
        kept[c.index].append((c, extra))
        stats.kept += 1
        if spread is not None:
            spread.update(counted(c))

    while pending:
        tag_seeds([templates[i].parse for i in pending], seed_tags)
        wave = [
            _candidate(i, templates[i], seeds[i], words, score, seed_tags[templates[i].parse.text])
            for i in pending
            for words, score in suggestions[i][examined[i] : examined[i] + window]
        ]
        verdicts = first_failures(checks, wave)
        scores: dict[int, float] = {}
        if fluency is not None:
            left = {i: room[i] - len(kept[i]) for i in pending}
            _check_fluency(wave, verdicts, left, fluency, scores, disfluent)
        halted: set[int] = set()  # templates that reached a candidate not scored yet: next wave
        for n, c in enumerate(wave):
            if len(kept[c.index]) >= room[c.index] or c.index in halted:
                continue
            # a text kept earlier in this wave is a duplicate too
            verdict = "duplicate" if c.text in kept_texts.get(c.seed.id, ()) else verdicts[n]
            if verdict is None and fluency is not None and n not in scores:
                halted.add(c.index)
                continue
            examined[c.index] += 1
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
            if spread is not None and any(w in spread for w in counted(c)):
                set_aside[c.index].append((c, extra))
                continue
            keep(c, extra)
        pending = [
            i
            for i in pending
            if len(kept[i]) < room[i] and examined[i] < len(suggestions[i]) and disfluent[i] < FLUENCY_TRIES
        ]
        window *= 2
    for i, fills in enumerate(set_aside):
        if capped is not None and spread is not None and not kept[i]:
            # the least repeated words first (best first among equals), none at the cap
            limit = max(1.0, capped * stats.kept)
            fills = sorted(fills, key=lambda fill: max((spread[w] for w in counted(fill[0])), default=0))
            fills = [fill for fill in fills if all(spread[w] + 1 <= limit for w in counted(fill[0]))]
        for c, extra in fills:
            if kept[i]:  # a repeat only for a template that found nothing else
                stats.unused += 1
            elif c.text in kept_texts.get(c.seed.id, ()):  # kept since, by another template
                stats.rejected["duplicate"] += 1
            else:
                keep(c, extra)
    stats.unused += sum(len(fills) - n for fills, n in zip(suggestions, examined))
    return kept


def _check_fluency(
    wave: Sequence[Candidate],
    verdicts: list[str | None],
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
            t = wave[n].index
            if n in scores:
                accepted[t] += verdicts[n] is None
            elif accepted[t] < room[t] and disfluent[t] < FLUENCY_TRIES:
                take.append(n)
                accepted[t] += 1  # counted as if it passed, until scored
        if not take:
            return
        pairs = [(wave[n].text, wave[n].seed.text) for n in take]
        deltas = fluency.scorer.deltas(pairs, [_fill_log_prob(wave[n]) for n in take])
        for n, delta in zip(take, deltas):
            scores[n] = delta
            if not fluency.keeps(delta):
                verdicts[n] = "fluency"
                disfluent[wave[n].index] += 1


def _spread_words(candidate: Candidate, *, coordinators: bool) -> list[str]:
    """The inserted words a spread counts, lower-cased; a capped one (``--insertions phrases``) no
    coordinator, which there frames a coordinated phrase rather than picks a word ("[long] [and]
    watchable": "and" is the only one the checks keep, so counted it capped every coordinated adjective of
    a fill call after the first; docs/yield-history.md, round 8)."""
    return [
        w.lower() for w, tag in zip(candidate.words, candidate.template.tags) if coordinators or tag != "CC"
    ]


def _fill_log_prob(candidate: Candidate) -> Known | None:
    """A one-mask candidate's template and score: the fill search's log-probability of its word at the
    mask, which the fluency scorer takes for that token's PLL instead of computing it again."""
    return (candidate.template, candidate.score) if len(candidate.template.masks) == 1 else None


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
                if not _keeps_capital(tokens, index, sentences):
                    lower.append(index)
        previous = index
        out.append(word)
    return tuple(out), tuple(dict.fromkeys(lower))


def _keeps_capital(
    tokens: Sequence[str], index: int, sentences: Sequence[tuple[int, int, list[str]]]
) -> bool:
    """Whether a capitalised sentence-initial token is written so anywhere: "I", an acronym, a word the
    tagger's dictionary knows as a proper noun ("Paris"), or a token tagged as one that starts a name
    ("Samuel Beckett", "Jacquot's"). The tagger calls most capitalised sentence-initial words proper
    nouns ("Mild, meandering ..."), so its tag alone does not decide."""
    token = tokens[index]
    if token == "I" or (len(token) > 1 and token.isupper()) or known_proper_noun(token):
        return True
    following = tokens[index + 1] if index + 1 < len(tokens) else ""
    # the seed's proper-noun tokens, only here: few candidates get this far
    proper = {a + k for a, _, tags in sentences for k, tag in enumerate(tags) if tag in PROPER_TAGS}
    return index in proper and (following[:1].isupper() or following in ("'s", "’s"))


def _sentence_initial(parse: Parse, index: int, starts: set[int]) -> bool:
    if index in starts:
        return True
    return parse.tokens[index - 1] in _QUOTES and opens(parse.text, parse.offsets[index - 1][1])


def _neighbours(template: MaskedTemplate, words: Sequence[str]) -> list[tuple[str | None, str, str | None]]:
    """Each inserted word, lower-cased, with the lower-cased tokens left and right of it in the filled
    text (None at an edge)."""
    filled = list(_lower_case(template.parse.tokens))
    positions = []
    for n, ((index, _), word) in enumerate(zip(template.masks, words)):
        filled.insert(index + n, word.lower())
        positions.append(index + n)
    return [
        (filled[p - 1] if p > 0 else None, filled[p], filled[p + 1] if p + 1 < len(filled) else None)
        for p in positions
    ]


@lru_cache(maxsize=4096)
def _lower_case(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """A seed's tokens lower-cased, once per template rather than for each of its candidates."""
    return tuple(token.lower() for token in tokens)


def _doubled(template: MaskedTemplate, words: Sequence[str]) -> bool:
    """Fix *doubled words*: whether an inserted word repeats the word next to it ("kind kind")."""
    return any(word in (left, right) for left, word, right in _neighbours(template, words))


def _candidate(
    i: int, template: MaskedTemplate, seed: TestCase, words: Sequence[str], score: float, sentences: list
) -> Candidate:
    recased, lower = recase(template, words, sentences)
    return Candidate(i, template, seed, sentences, recased, score, *template.render(recased, lower), lower)


def sentence_at(seed_tags: list, index: int) -> tuple[int, int, list[str]]:
    """The seed's sentence holding token ``index`` (a candidate's ``seed_tags``; the last sentence for an
    index past the last token, where a word inserted at the end goes): its token range and tags."""
    return next((r for r in seed_tags if r[0] <= index < r[1]), seed_tags[-1])


def tag_seeds(parses: Iterable[Parse], seed_tags: dict[str, list]) -> None:
    """Tag, once and in one batch, the seed texts not in ``seed_tags`` (text -> per sentence: token range
    and tags)."""
    by_text = {parse.text: parse for parse in parses if parse.text not in seed_tags}
    new = sorted(by_text)
    sentences = {text: tokenize(text).sentences for text in new}
    tagged = iter(pos_tag_sents([by_text[text].tokens[a:b] for text in new for a, b in sentences[text]]))
    for text in new:
        seed_tags[text] = [(a, b, next(tagged)) for a, b in sentences[text]]


def _inserted_tags(candidates: Sequence[Candidate]) -> list[tuple[str | None, ...]]:
    """The Penn tag of each inserted word, tagged in its sentence of the filled text.

    The filled sentence is the seed's tokens with the words inserted (and the tokens ``recase`` lowered),
    so only the stretch around the insertions is tagged again (``tagging.pos_tag_from``: exactly what
    tagging the whole sentence gives); the seeds' own tags come with each candidate (``tag_seeds``).
    None where the tokenizer would not keep an inserted word whole ("cannot").
    """
    out: list[tuple[str | None, ...]] = []
    for c in candidates:
        template = c.template
        if not all(is_single_token(word) for word in c.words):
            out.append((None,) * len(c.words))
            continue
        a, b, tags = sentence_at(c.seed_tags, template.masks[0][0])
        words = list(template.parse.tokens[a:b])
        for index in c.lower:
            if a <= index < b:
                words[index - a] = words[index - a][:1].lower() + words[index - a][1:]
        positions: list[int] = []
        for (index, _), word in zip(template.masks, c.words):
            positions.append(index - a + len(positions))
            words.insert(positions[-1], word)
        start = max(0, positions[0] - 2)
        new_tags = pos_tag_from(words, tags[:start], positions[-1] + 1)
        out.append(tuple(new_tags[p - start] for p in positions))
    return out
