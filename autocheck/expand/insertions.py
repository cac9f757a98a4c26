"""Which words an expansion may insert (``--insertions``), judged on the production and the placement.

The paper inserts whatever word-level tags a production adds (``any``). Read directly, what that keeps
is mostly ungrammatical or odd with the stand-in models (README, *Validity*): a function word brings
syntax of its own that the production alone does not license ("the last time I saw with worse stunt
editing"), an inserted noun changes a phrase's head or number ("those young man", "The horror entire
movie"), a comparative or superlative needs a comparison the sentence does not make ("That is not a
largest cheat"), and an adverb inside a prepositional or adverb phrase rarely fits ("lives directly of
quiet desperation", "too far savvy").

* ``modifiers`` (``generate``'s before ``phrases``, ``autocheck fuzz``'s until its round 20): exactly one
  adjunct, the kind of word a phrase takes without changing its head or its arguments: an adjective (``JJ``)
  right before a noun phrase's first noun ("a [new] cheat", "a good [little] idea"), or an adverb (``RB``) in
  a clause, a verb phrase or an adjective phrase ("It [also] is a bad sign", "is [really] amusing"), including
  one that grades a seed's ungraded attributive adjective ("An [utterly] enjoyable experience": the adjective
  as the ``ADJP -> JJ`` the treebank writes, ``expansion._attributive_adjectives``; fuzz's short fragments had
  no other site). Before another adjective, an adjective reads as that one's degree ("a [real] healthy sense",
  "the [whole] worst"), so it goes next to the noun. Two checks judge the word the masked LM chose, which the
  tag alone does not tell:

  - ``determinative``: the words the Penn Treebank tags ``JJ`` but that determine rather than describe,
    quantifiers, ordinals and words of identity ("a few Hollywood studio", "such one of the most
    frantic", "the first center of", "the only Sum of All Fears"), are rejected;
  - ``adverb``: an adverb of place, time or direction, a connective or a word that needs a negation adds
    a circumstance, a link or a polarity the sentence may not take ("anywhere [there] could have
    thought", "as [then] it doles out", "lives [instead] of", "is incredible [either]"): rejected. A
    degree adverb modifies the adjective right after it, so it needs one ("is [so] amusing", not
    "signals [so] director" or "[very] pretty cheesy"). A focus adverb picks out the phrase after it,
    which an auxiliary or another adverb is not ("[just] leaves", not "It [just] is amusing", "can
    [only] think").
* ``phrases`` (``generate``'s default; docs/yield.md): up to three such adjuncts (``modifier_phrase``),
  an adverb grading an inserted adjective ("a [very] [old] film"), and since the fifth round a few
  phrases the grammar proposes beyond one modifier: a demonstrative's noun ("This [film] is"), an
  adjective joined by "and" to the seed's ("[long] [and] watchable"), a degree adverb grading an
  inserted adverb ("[very] [often]"), and since the sixth round a noun modifying a film noun ("a
  [comedy] film") and a number counting a plural ("these [two] roles"), their words judged by the
  ``phrase`` check (``Phrases``).
* ``content``: any number of common nouns, adjectives, adverbs and verbs, never a function word or a
  proper noun.
* ``any``: every tag the grammar proposes (the paper; ``--compat`` always).

Under ``modifiers`` and ``phrases``, since the eighth round, an intensifier the lexicon calls polar may
grade a seed's adjective that carries the seed's label ("a [terribly] funny film", "an [incredibly] dull
one": ``INTENSIFIERS``, ``intensifies``): the one place an inserted word need not be neutral. Since the
ninth round each such adjective (tagged ``JJ`` by the tagger) is a site of its own beyond the seed's top
k, filled from the intensifiers alone (``intensifier_sites``, ``Differentiator.adjective_sites``), and
the capability's requirement reads the intensifier as absent (``validate.MeetsRequirement``). Under
``phrases`` degree and stance adverbs (``FUNCTION_ADVERBS``) and adjectives of dimension, age and colour
(``PROPERTY_ADJECTIVES``) are neutral to SentiWordNet as it judges an inserted word
(``insertion_lexicon``): it scores them from their glosses, and the word checks place them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..sources.lexicon import NEGATIVE, NEUTRAL, POSITIVE, relational_adjectives
from .expansion import ADJECTIVE_TAGS, ADVERB_TAGS, NOUN_TAGS
from .validate import sentence_at
from .vocabulary import INTENSIFIER, MODIFYING
from .words import (
    Articles,
    Dictionary,
    IdentityTerms,
    PolarityItems,
    common_nouns,
    identity_terms,
    modifier_words,
)

if TYPE_CHECKING:
    from ..records import MaskedTemplate, TestCase
    from ..sources.lexicon import Lexicon
    from .expansion import Masks, Placement  # (gap, tag): a word of ``tag`` inserted before the child ``gap``
    from .validate import Candidate, Check

CONTENT_TAGS = frozenset(
    {"NN", "NNS", "JJ", "JJR", "JJS", "RB", "RBR", "RBS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"}
)
# the phrases each adjunct tag may be inserted into (PTB labels)
MODIFIER_PARENTS = {"JJ": frozenset({"NP"}), "RB": frozenset({"S", "VP", "ADJP"})}
# ``phrases``: the words that go before a noun phrase's first noun, and the most words one expansion
# inserts. Participles are left out: read blind, 15 of the 35 inserted words in -ing or -ed were
# ungrammatical ("an [going] affectionate take", "tier of [made] blaxploitation flicks"), against 21 % of
# the other words (benchmarks/yield_*sample.jsonl, the tuning rows)
PRENOMINAL_TAGS = frozenset({"JJ"})
# round 6 (docs/yield-history.md): a noun that classifies a film, a story or their parts by genre, medium or
# setting ("a [comedy] film", "these [action] scenes"), before a noun of ``FILM_NOUNS`` only: before other
# nouns the masked LM's compounds read as nonsense ("the same [horror] time", "a [space] hole", "some
# [family] juice" on the bench seeds). None names people or judges
NOUN_MODIFIERS = frozenset(
    """action adventure animation comedy crime detective disaster documentary drama family fantasy
    gangster heist holiday horror monster music mystery period prison revenge road romance sports spy
    suspense war western zombie vampire ghost space studio cable television video stage festival summer
    weekend buddy caper chase dance fight art costume cult slasher superhero thriller farce cartoon radio
    theater opera school college ensemble prestige""".split()
)
FILM_NOUNS = frozenset(
    """film films movie movies picture pictures flick flicks story stories tale tales thriller thrillers
    drama dramas comedy comedies feature features version versions sequel sequels remake remakes series
    genre scene scenes sequence sequences fan fans audience audiences director directors star stars actor
    actors cast hero heroes villain villains character characters role roles script plot plots score
    soundtrack premise fare entry franchise icon icons debut classic classics epic epics documentary
    documentaries cartoon cartoons production productions adaptation adaptations performance
    performances show shows episode episodes moment moments piece outing vehicle satire romp yarn
    melodrama spectacle filmmaker filmmakers writer writers material elements conventions formula""".split()
)
# round 6: a cardinal number counting a plural noun after a definite determiner ("these [two] roles")
NUMBERS = frozenset("two three four five six seven eight nine ten".split())
DEFINITE = frozenset("the these those its his her their our your my".split())
MAX_PHRASE = 3
# ``phrases``: the most share of a fill call's expansions one repeated word may take (issue #35: 3 %)
SPREAD_CAP = 0.03
# quantifiers and words of identity (the Cambridge Grammar's determinatives that the PTB tags JJ) and
# ordinals: they set a noun's number or pick it out of a set or a series the sentence does not give
DETERMINATIVES = frozenset(
    """few many much several such other enough same only certain first second third fourth fifth last
    next""".split()
)
# adjectives of genuineness and of singling out: inserted, they claim what the seed does not ("the
# [true] movie collapses", "a [special] viewer", "holds the [real] screen"). Read blind in rounds 7 and 8
# (the tuning rows now), 6 of their 36 grammatical rows were natural, against 285 of all 540
ASSERTING = frozenset({"real", "true", "special", "personal"})
NOT_DESCRIBING = DETERMINATIVES | ASSERTING  # the adjectives the determinative check rejects
# adverbs the PTB tags RB alike but that a sentence takes on different terms (the Cambridge Grammar's
# adjunct classes): circumstances of place, time and direction, connectives and words that need a
# negation (never inserted), degree adverbs (before an adjective or adverb) and focus adverbs (not
# before an auxiliary or an adverb)
CIRCUMSTANCES = frozenset(
    """here there now then today tonight tomorrow yesterday ago soon later earlier again already yet once
    twice lately recently previously formerly up down out off back away around ahead along aside together
    apart forward home abroad nearby everywhere somewhere anywhere nowhere elsewhere however instead
    therefore thus hence otherwise meanwhile nevertheless nonetheless besides either anymore before after
    long close far longer always""".split()
)  # "always", a frequency: "should have [always] been", "you [always] think" (2 of 7 natural, as above)
# adverbs that weaken, deny or turn what follows them: CheckList's "reducers" (its DIR test: "somewhat",
# "kinda", "mostly", "probably", "generally", "reasonably", "slightly"), approximators that deny what they
# modify ("nearly worthwhile" is not worthwhile), epistemic hedges, and "too", which makes a quality an
# excess ("too sweet", "too exciting" are complaints). They move a text's sentiment, so they are never
# inserted: read blind (docs/fuzz-history.md, round 5), "a [nearly] worthwhile way", "a [slightly] worthwhile
# way", "a [potentially] loquacious and dreary piece", "a manically [too] generous" had lost their label.
# Since the sixteenth round also "generally"'s kin, which make a judgement the rule and not this case's
# ("The actors are [normally] fantastic"), and the restrictives that make it no more than what follows
# ("is [merely] brilliant"): of fuzz's failures read blind in rounds 13-17, 5 of 20 with "normally" and 1
# of 1 with "merely" had lost their label (docs/fuzz.md)
HEDGES = frozenset(
    """somewhat kinda mostly probably generally reasonably slightly almost nearly barely hardly scarcely
    partly partially mildly moderately marginally relatively potentially possibly arguably seemingly
    supposedly allegedly ostensibly perhaps maybe too normally usually typically ordinarily commonly
    merely only""".split()
)
DEGREE = frozenset("very so too extremely highly quite pretty rather fairly somewhat almost nearly".split())
FOCUS = frozenset("just only even merely simply exactly".split())
# eleventh round (docs/yield.md): in a clause (not grading an adjective or adverb after it) only a stance
# adverb, which comments on the whole clause without changing what it says ("It [actually] feels",
# "is [essentially] a film"). Manner, time and frequency adverbs add to the event a circumstance the
# sentence may not take, which the tag does not tell ("It [immediately] has fun", "should [quickly] have
# shaped", "actors [accidentally] appear"), nor does the masked LM. Of the tenth round's 600 rows read
# blind (the tuning rows now; ``benchmarks/yield_checks.py``) the rule rejects 144: 23 natural (16 %, of
# the 600 46 %), 33 ungrammatical. "even", "merely", "exactly" and "only" need a contrast the sentence
# does not give
CLAUSE_ADVERBS = frozenset(
    """absolutely actually apparently basically certainly clearly definitely essentially evidently indeed
    just naturally obviously really simply still also surely truly ultimately undoubtedly finally""".split()
)
# closed-class adverbs that grade or comment on what they modify, with no polarity of their own. A
# gloss-based lexicon scores them anyway (SentiWordNet: "very", "used as intensifiers", 0.25 positive and
# 0.25 negative; "quite", "to a degree", 0.625 negative), and its pure-neutral rule then bars them all:
# under it the defaults inserted no "very", "really" or "quite" at all, which the opinion lexicon calls
# neutral (docs/yield.md). The adverb checks decide where they go, not the lexicon
# (``insertion_lexicon``), under ``phrases`` only: ``modifiers``, fuzz's before round 20, goes down to the
# last valid candidate and over its depths stacked them ("Very [quite] bad", "no [suddenly] [definitely]
# good", read blind: docs/fuzz-history.md, round 14), which ``phrases``' own check keeps out. Not the
# focus adverbs, which need a contrast the sentence may not give ("brought [just] to life", "is [exactly]
# magnetic"), nor "pretty" and "fairly", downtoners like the hedges, nor "clearly", whose adjective
# evaluates: the opinion lexicon calls these three polar
FUNCTION_ADVERBS = (DEGREE | CLAUSE_ADVERBS) - FOCUS - HEDGES - {"pretty", "fairly", "clearly"}
# adjectives of Dixon's property types that describe without judging: dimension, age and colour ("a
# [long] film", "an [old] house", "a [red] car"). SentiWordNet scores some sense of nearly each from its
# gloss ("old", "skilled through long experience": 0.375 positive; "small", "limited or below average in
# number or quantity or magnitude or extent": 0.375 negative; "long" 0.5 negative in one of nine senses), and
# its pure-neutral rule then bars them all: under it generate's adjectives were the few it leaves unscored
# ("family", "visual", "middle"). The opinion lexicon calls all of these neutral. Not the types that judge
# (value: "great"), nor physical properties, whose senses in a review mostly judge ("a cold film", "a light
# comedy", "a dry script"), nor "high" and "low" ("a low point"). Read blind, they keep the label, but with
# the stand-in masked LM read natural as seldom as other adjectives before a noun that is no film noun
# ("some [big] juice"; docs/yield.md, fifteenth round)
PROPERTY_ADJECTIVES = frozenset(
    """big small large little long short tall wide narrow deep shallow thick thin tiny huge
    old new young ancient modern recent
    black white red blue green yellow brown grey gray pink purple orange""".split()
)
# the degree adverbs that grade an attributive adjective in place ("a [very] [old] film"; not "a so old
# film", which English writes "so old a film")
ATTRIBUTIVE_DEGREE = frozenset("very extremely fairly rather pretty really".split())
# the degree adverbs that may grade a seed's attributive adjective ("a [highly] enjoyable experience")
ATTRIBUTIVE_GRADES = (DEGREE - {"so", "too", "quite"}) | {"really", "truly"}
# a degree adverb grades an adjective or an adverb ("[very] good", "[very] quickly") or a participle that
# is a dictionary adjective, never another verb form ("[very] being buried") or a noun
DEGREE_HEADS = frozenset({"JJ", "RB"})
# adjectives that take a complement and no degree: "It is [very] worth seeing" is no English ("well worth" is
# an idiom, not a degree). Read blind, "[terribly] worth" was fuzz's most frequent ungrammatical failure
# (docs/fuzz.md, round 20), and the defaults put a degree adverb there too ("[highly] worth")
UNGRADED = frozenset({"worth"})
# degree adverbs that a lexicon calls polar but that before an adjective only raise it, whichever way it
# points ("a [terribly] funny film" is very funny, "an [incredibly] dull film" very dull; each reads
# naturally before either kind): before a seed's adjective that carries the seed's label they keep it
# (``intensifies``). A model that adds up its words' polarities reads the adverb's own ("terribly" is
# negative to VADER, AFINN and TextBlob), which no neutral insertion can show. Not "wildly": it grades
# few adjectives ("wildly uneven"); read while tuning the adjective sites, "wildly painful", "wildly
# indifferent", "wildly priceless" (docs/yield-history.md, ninth round)
INTENSIFIERS = frozenset(
    """terribly awfully insanely ridiculously utterly incredibly remarkably amazingly exceptionally
    extraordinarily unbelievably""".split()
)
INTENSIFYING = frozenset({"modifiers", "phrases"})  # the --insertions modes that insert them
_BE_FORMS = frozenset("is are was were am be been being 's 're 'm".split())


def content_words(lhs: str, rhs: Sequence[str], placement: Placement) -> bool:
    return all(tag in CONTENT_TAGS for _, tag in placement)


def one_modifier(lhs: str, rhs: Sequence[str], placement: Placement) -> bool:
    if len(placement) != 1:
        return False
    gap, tag = placement[0]
    if lhs not in MODIFIER_PARENTS.get(tag, ()):
        return False
    return tag != "JJ" or _prenominal(rhs, gap)


def _prenominal(rhs: Sequence[str], gap: int) -> bool:
    """An attributive word goes right before a noun phrase's first noun ("a [new] film", not "[sure] a
    film", "the [whole] worst film" or "the film [new] process")."""
    return gap < len(rhs) and rhs[gap] in NOUN_TAGS and not any(s in NOUN_TAGS for s in rhs[:gap])


def modifier_phrase(lhs: str, rhs: Sequence[str], placement: Placement) -> bool:
    if not 1 <= len(placement) <= MAX_PHRASE:
        return False
    if lhs == "NP" and rhs == ("DT",):  # a demonstrative given its noun: "This [film] is", "this [old film]"
        return [tag for _, tag in placement] in HEADED_DEMONSTRATIVE
    # two adverbs go in at one place only as a degree adverb grading an adverb ("is [very] [often]
    # amusing"; the words are the ``phrase`` check's), and one attributive adjective: the masked LM's other
    # stacks were out of order or read as a degree ("[very] [really] good", "a [little] [old] loop"), and
    # ordered adjective pairs ("a [new] [political] film") took a quarter of alict60's templates and
    # twice its masked-LM rows for a handful of fills (docs/yield-history.md, round 5)
    adverb_gaps = Counter(gap for gap, tag in placement if tag == "RB")
    attributive = sum(
        tag in PRENOMINAL_TAGS and not _coordinated(rhs, placement, n) for n, (_, tag) in enumerate(placement)
    )
    stacked = max(adverb_gaps.values(), default=0)
    if stacked > 2 or (stacked == 2 and len(adverb_gaps) > 1):
        return False
    if attributive > 1:
        return False
    for n, (gap, tag) in enumerate(placement):
        if tag == "CC" or (tag in PRENOMINAL_TAGS and _coordinated(rhs, placement, n)):
            if lhs not in ("NP", "ADJP") or not _coordinated(rhs, placement, n):
                return False
        elif tag in PRENOMINAL_TAGS:
            if lhs != "NP" or not _prenominal(rhs, gap):
                return False
        elif tag == "NN":
            if lhs != "NP" or not _noun_modifier(rhs, placement, n):
                return False
        elif tag == "CD":
            if lhs != "NP" or not _counting(rhs, placement, n):
                return False
        elif tag == "RB":
            grades_next = n + 1 < len(placement) and placement[n + 1] == (gap, "JJ")  # "a [very] [old] film"
            if lhs not in MODIFIER_PARENTS["RB"] and not (lhs == "NP" and grades_next):
                return False
        else:
            return False
    return True


HEADED_DEMONSTRATIVE = [
    ["NN"], ["NNS"], ["JJ", "NN"], ["JJ", "NNS"], ["RB", "JJ", "NN"],
    ["NN", "NN"], ["NN", "NNS"], ["CD", "NNS"],
]  # fmt: skip


def _noun_modifier(rhs: Sequence[str], placement: Placement, n: int) -> bool:
    """An inserted noun modifies the seed's noun right after it ("a [comedy] film", "a good [action]
    movie"): the last word inserted at its place, before a noun phrase's first noun, which is a common
    noun and no compound's first part ("an absurdist [horror] spider web")."""
    gap = placement[n][0]
    last = n + 1 == len(placement) or placement[n + 1][0] != gap
    compound = gap + 1 < len(rhs) and rhs[gap + 1] in NOUN_TAGS
    return last and _prenominal(rhs, gap) and rhs[gap] in ("NN", "NNS") and not compound


def _counting(rhs: Sequence[str], placement: Placement, n: int) -> bool:
    """An inserted number comes first at its place, right after a determiner and before the noun
    phrase's first noun, a plural ("these [two] roles", "the [two] [new] films")."""
    gap = placement[n][0]
    first = n == 0 or placement[n - 1][0] != gap
    determined = gap > 0 and rhs[gap - 1] in ("DT", "PRP$")
    return first and determined and _prenominal(rhs, gap) and rhs[gap] == "NNS"


def _coordinated(rhs: Sequence[str], placement: Placement, n: int) -> bool:
    """Whether word ``n`` of the placement is part of an adjective coordinated with a seed adjective:
    "[funny] [and] charming" (JJ CC right before a seed JJ) or "charming [and] [funny]" (CC JJ right
    after one, a degree adverb perhaps grading it: "charming [and] [very] [funny]")."""
    gap, tag = placement[n]
    tags = [t for g, t in placement if g == gap]
    if tags[-2:] == ["JJ", "CC"] and gap < len(rhs) and rhs[gap] == "JJ":
        return tag in ("JJ", "CC") and (tag == "CC" or placement[n + 1] == (gap, "CC"))
    if tags in (["CC", "JJ"], ["CC", "RB", "JJ"]) and gap > 0 and rhs[gap - 1] == "JJ":
        return tag in ("JJ", "CC")
    return False


INSERTABLE: dict[str, Callable[[str, Sequence[str], Placement], bool] | None] = {
    "modifiers": one_modifier,
    "phrases": modifier_phrase,
    "content": content_words,
    "any": None,
}


class Determinatives:
    """The ``determinative`` check of ``--insertions modifiers``: no inserted word is a quantifier or an
    ordinal (``DETERMINATIVES``), nor an adjective of genuineness or of singling out (``ASSERTING``)."""

    name = "determinative"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [not any(w.lower() in NOT_DESCRIBING for w in c.words) for c in candidates]


class Adverbs:
    """The ``adverb`` check of ``--insertions modifiers`` and ``phrases``: no inserted adverb is a
    circumstance, connective or word that needs a negation (``CIRCUMSTANCES``) or a hedge (``HEDGES``), a
    degree adverb comes before an adjective or adverb that is no degree adverb itself, a focus adverb not
    before a form of "be", a modal or an adverb. The next word is the next inserted one (with its mask's
    tag) or the seed's token (with its tag in the seed, tagged in context). Before an attributive adjective
    of the seed (one a noun or another adjective follows: "An [utterly] enjoyable experience") an adverb
    grades it in place, which only a degree adverb English puts there or a manner adverb in -ly does (not
    "a [so] enjoyable", "an [also] enjoyable", "a [just] enjoyable": ``_grades_in_place``)."""

    name = "adverb"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [self._fits(c) for c in candidates]

    @staticmethod
    def _fits(candidate: Candidate) -> bool:
        return all(
            _adverb_fits(word.lower(), following, following_tag)
            and (not inserted_next or word.lower() in ATTRIBUTIVE_DEGREE)
            and (not attributive or _grades_in_place(word.lower()))
            for word, tag, following, following_tag, inserted_next, attributive in _with_following(candidate)
            if tag == "RB"
        )


def _with_following(candidate: Candidate) -> list[tuple[str, str, str, str | None, bool, bool]]:
    """Each inserted word with its mask's tag, the word right after it in the filled text with that
    word's tag, whether that word is inserted too (the next inserted word and its mask's tag, or the
    seed's token and its tag in the seed; "" and None after the last token) and whether it is a seed's
    attributive adjective (a noun or an adjective follows it; not a quantifier)."""
    masks, tokens = candidate.template.masks, candidate.template.parse.tokens
    out: list[tuple[str, str, str, str | None, bool, bool]] = []
    for n, ((index, tag), word) in enumerate(zip(masks, candidate.words)):
        if n + 1 < len(masks) and masks[n + 1][0] == index:  # the next word goes in at the same place
            out.append((word, tag, candidate.words[n + 1], masks[n + 1][1], True, False))
            continue
        a, b, tags = sentence_at(candidate.seed_tags, index)
        following = (tokens[index], tags[index - a]) if index < b else ("", None)
        attributive = (  # a quantifier is no adjective to grade ("there are [even] many tense scenes")
            following[1] in ADJECTIVE_TAGS
            and following[0].lower() not in DETERMINATIVES
            and index + 1 < b
            and tags[index + 1 - a] in ATTRIBUTIVE_TAGS
        )
        out.append((word, tag, *following, False, attributive))
    return out


def _grades_in_place(word: str) -> bool:
    """An adverb that may grade an attributive adjective: a degree adverb English puts between the
    article and the adjective (``ATTRIBUTIVE_GRADES``: not "so", "too", "quite", which go before the
    article: "so enjoyable an experience") or a manner adverb in -ly ("an [utterly] enjoyable"), not a
    sentence or focus adverb ("an [also] enjoyable", "a [simply] enjoyable")."""
    return word in ATTRIBUTIVE_GRADES or _manner_adverb(word)


def _manner_adverb(word: str) -> bool:
    """An -ly adverb of the dictionary that is no degree, focus or sentence adverb ("utterly", "quietly")."""
    return (
        word.endswith("ly")
        and word not in DEGREE | FOCUS | SENTENCE_ADVERBS
        and word in modifier_words()["RB"]
    )


def _adverb_fits(word: str, following: str, following_tag: str | None) -> bool:
    if word in CIRCUMSTANCES or word in HEDGES:
        return False
    graded = _gradable(following, following_tag)
    if word in DEGREE:
        return graded and following.lower() not in DEGREE
    if not graded and word not in CLAUSE_ADVERBS:
        return False  # a manner, time or frequency adverb in a clause: "It [immediately] has fun"
    if word in FOCUS:
        return following_tag not in ("MD", "RB", "PRP") and following.lower() not in _BE_FORMS
    return True


def _gradable(following: str, following_tag: str | None) -> bool:
    """The word after an adverb is one it grades: an adjective, an adverb other than a negation, or a
    participle that is an adjective ("[very] captivating"), not a verb form ("[very] being")."""
    if following_tag in DEGREE_HEADS:
        return following.lower() not in NEGATION_ADVERBS | UNGRADED
    return following_tag in ("VBG", "VBN") and following.lower() in modifier_words()["JJ"]


ATTRIBUTIVE_TAGS = ADJECTIVE_TAGS | NOUN_TAGS  # the modifiers an inserted adjective must not follow
NEGATION_ADVERBS = frozenset({"not", "n't"})
# a word between these and the second coordinate splits "both ... and" ("is both [further] stimulating")
CORRELATIVES = frozenset({"both", "either", "neither"})
# nouns of quantity that take no adjective of their own ("a [short] lot more", "a [missing] bit of")
QUANTITY_NOUNS = frozenset({"lot", "lots", "bit", "couple"})
# nouns of kind, which "whole" and "entire" do not take ("the [whole] kind of movie")
KIND_NOUNS = frozenset({"kind", "sort", "type"})
# adjectives of age, which go after an opinion or a size ("a terrible [old] adaptation")
AGE_ADJECTIVES = frozenset("old new young ancient modern".split())
# adjectives that only follow a verb ("these [sure] women")
PREDICATIVE_ONLY = frozenset("sure afraid alive alone asleep awake aware glad unable".split())
# adjectives of a whole that need one singular thing ("the [whole] performances")
WHOLE = frozenset({"whole", "entire"})
# a finite auxiliary or copula: an adjunct goes after it, not before ("Auto Focus [easily] is not",
# "I [always] am giving", "Upper Teens [always] may get"), except the sentence adverbs that may precede it
FINITE_AUXILIARIES = frozenset(
    "is are was were am 's 're 'm do does did can could may might must shall should will would".split()
)
SENTENCE_ADVERBS = frozenset(
    """also still certainly surely probably definitely really clearly obviously truly indeed usually often
    sometimes somehow apparently basically actually ultimately suddenly""".split()
)
OBJECT_STARTS = frozenset({"DT", "PDT", "PRP$", "PRP"})
SUBJECT_STARTS = OBJECT_STARTS | {"EX"}  # a clause's subject: "if [actually] you", "what [often] the"
# a clause's subordinator: "if", "that" (IN, WDT), "what" (WP), "when" (WRB)
SUBORDINATORS = frozenset({"IN", "WDT", "WP", "WRB"})
CLAUSE_ENDS = frozenset({None, ".", ",", ":"})
# a linking verb's complement is an adjective or a noun phrase, never an adverb ("make it seem
# [seriously].", "Strange it is [surprisingly],")
LINKING_VERBS = frozenset(
    """seem seems seemed appear appears appeared become becomes became look looks looked sound sounds
    sounded remain remains remained is are was were be been am""".split()
)
VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})


class WordOrder:
    """The ``word order`` check of ``--insertions modifiers`` and ``phrases``: an inserted word fits the
    seed's words on both sides of it, which the production does not show (docs/yield-history.md, second
    round):

    - nothing goes inside a name or a title, a word capitalised mid-sentence on either side ("of a [big]
      Dangerous Mind", "the Rings' [wide] trilogy"), nor after "both", "either", "neither";
    - an adjective goes first among a noun's modifiers, after no adjective or noun and right before a
      noun ("some charming [different] chemistry", "holiday [running] movie", "[full] listless feature"),
      never before "lot" or "bit", and "whole" only before a singular noun;
    - an adverb goes before no other adverb ("the [highly] endlessly"), noun or finite auxiliary
      ("[easily] is", bar a sentence adverb: "[also] is"), after no adjective ("watchable [often]"), not
      between a verb and its object ("lets [exactly] the audience") nor after a noun at a phrase's end
      ("dope [alone],").

    Third round (docs/yield-history.md), from the second blind reading's rows: no adverb after an -ly adverb
    grading the same word ("easily [highly] dismissive"), as a linking verb's complement ("make it seem
    [seriously].") or between a verb and a pronoun object ("make [maybe] it"); no inserted word right
    before "to" but after a noun or as a focus adverb ("may be [close] to believe", "come [quickly] to");
    no predicative-only adjective before a noun ("these [sure] women"), "own" only after a possessive.
    Round 6: an inserted noun modifier follows no noun ("plodding costume [comedy] drama").
    Round 10: no adverb between a subordinator (or the noun a relative clause follows) and the clause's
    subject, bar a focus adverb ("if [actually] you are", "when [usually] you think", "the rationale
    [sometimes] I can think of"; after "but" or "and" it may: "but [obviously] it is").
    Relaxed, where readers called the rejected rows grammatical: a quotation's first word and a name's
    possessive end no name ('"The [main] film', "Cox's [final] approach"), a relational or age adjective
    may follow another adjective ("marginal [political] intelligence"), more sentence adverbs may precede
    "is" ("It [truly] is").
    """

    name = "word order"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [not any(_misplaced(*site) for site in _neighbours(c)) for c in candidates]


Neighbour = tuple[str, "str | None"]  # a seed token and its tag; ("", None) past its sentence's ends
QUOTES = frozenset({"'", "’", "''", '"', "``", "‘", "“", "”"})


def _neighbours(candidate: Candidate) -> list[tuple[str, str, Neighbour | None, Neighbour | None, bool]]:
    """Each inserted word (lower-cased) with its mask's tag, the seed's token right before it and right
    after it (None where that word is inserted too), and whether it goes inside a name or a title: the
    nearest seed word before it (past a quote: "the Rings' [wide] trilogy") or the one after it is
    capitalised and starts neither its sentence nor a quotation ('"The [main] film' is no name, and a
    name's possessive ends the name: "Paul Cox's [final] approach")."""
    masks, tokens = candidate.template.masks, candidate.template.parse.tokens
    out = []
    for n, ((index, tag), word) in enumerate(zip(masks, candidate.words)):
        a, b, tags = sentence_at(candidate.seed_tags, index)
        before = index - 1
        while before > a and tokens[before] in QUOTES:
            before -= 1
        in_name = (before >= a and _in_name(tokens, before, a)) or (index < b and _in_name(tokens, index, a))
        previous = (
            None
            if n and masks[n - 1][0] == index
            else _token(tokens, tags, a, index - 1 if index > a else None)
        )
        # an adjective joined by an inserted "and" to the seed's adjective before it stands where that one
        # stands ("watchable [and] [very] [quiet]."): the seed's next word is that adjective's, not its own
        coordinated = tag == "JJ" and (index, "CC") in masks[:n]
        following = (
            None
            if n + 1 < len(masks) and masks[n + 1][0] == index or coordinated
            else _token(tokens, tags, a, index if index < b else None)
        )
        out.append((word.lower(), tag, previous, following, in_name))
    return out


def _token(tokens: Sequence[str], tags: list[str], start: int, i: int | None) -> Neighbour:
    return (tokens[i], tags[i - start]) if i is not None else ("", None)


def _in_name(tokens: Sequence[str], i: int, start: int) -> bool:
    """Token ``i`` is capitalised though it starts neither its sentence (from ``start``) nor a quotation."""
    token = tokens[i]
    starts = i == start or tokens[i - 1] in QUOTES
    return token[:1].isupper() and token != "I" and not starts


def _misplaced(
    word: str, tag: str, previous: Neighbour | None, following: Neighbour | None, in_name: bool
) -> str | None:
    """Why an inserted word does not fit the seed's words beside it (a rule of ``WordOrder``), or None."""
    if in_name:
        return "inside a name"
    if previous is not None and previous[0].lower() in CORRELATIVES:
        return "after a correlative"
    if (
        following is not None
        and following[0].lower() == "to"
        and word not in FOCUS
        and (previous is None or previous[1] not in NOUN_TAGS)
    ):
        return "before to"
    if tag == "JJ":
        if word in PREDICATIVE_ONLY:
            return "predicative only"
        if word == "own" and (previous is None or previous[1] not in ("PRP$", "POS")):
            return "own without a possessive"  # "Scores no [own] points"; "his [own] performance"
        if previous is not None and previous[1] in ATTRIBUTIVE_TAGS and not _classifying(word, previous[1]):
            return "after a modifier"
        if following is not None:
            nxt, nxt_tag = following
            if (
                nxt_tag not in NOUN_TAGS
                or nxt.lower() in QUANTITY_NOUNS
                or (word in WHOLE and (nxt_tag != "NN" or nxt.lower() in KIND_NOUNS))
            ):
                return "not before its noun"
    if tag == "NN" and previous is not None and previous[1] in NOUN_TAGS:
        return "after a noun"  # a noun modifier inside a compound: "plodding costume [comedy] drama"
    if tag == "RB":
        if previous is not None and _grading(previous[0]):
            return "after a degree adverb"
        if following is None and previous is not None and previous[1] in ATTRIBUTIVE_TAGS:
            return "after a modifier"  # grading an inserted adjective: "a pretty amazing [very simple]"
        if following is not None:
            nxt, nxt_tag = following
            if nxt_tag in NOUN_TAGS or (nxt_tag in ADVERB_TAGS and nxt.lower() not in NEGATION_ADVERBS):
                return "before a noun or adverb"
            if nxt.lower() in FINITE_AUXILIARIES and word not in SENTENCE_ADVERBS:
                return "before an auxiliary"
            if previous is not None:
                prev, prev_tag = previous
                if prev_tag in ADJECTIVE_TAGS or (prev_tag in NOUN_TAGS and nxt_tag in CLAUSE_ENDS):
                    return "after an adjective or a noun's end"
                if prev_tag in VERB_TAGS and prev.lower() not in _BE_FORMS and nxt_tag in OBJECT_STARTS:
                    return "between a verb and its object"
                if (prev_tag in SUBORDINATORS or prev_tag in NOUN_TAGS) and nxt_tag in SUBJECT_STARTS:
                    if word not in FOCUS:  # "if [only] we", "of [just] the"
                        return "before a subordinate clause's subject"
                if prev.lower() in LINKING_VERBS and nxt_tag in CLAUSE_ENDS:
                    return "for a linking verb's complement"
    return None


def _classifying(word: str, previous_tag: str | None) -> bool:
    """An adjective that goes last among a noun's adjectives, after an opinion or a size ("marginal
    [political] intelligence", "a terrible [old] adaptation"): one of relation (-al, -ic) or age
    (``AGE_ADJECTIVES``), after an adjective, not a noun or a superlative ("the worst [old] film")."""
    return previous_tag in ("JJ", "JJR") and (word.endswith(("al", "ic")) or word in AGE_ADJECTIVES)


def _grading(token: str) -> bool:
    """A seed word that is an -ly adverb ("easily", "entirely", "deadly"): before an adjective it grades
    it, and a second adverb stacks on it ("easily [highly] dismissive", "entirely [relatively] charming");
    a sentence adverb grades nothing ("actually [very] watchable")."""
    word = token.lower()
    return word.endswith("ly") and word in modifier_words()["RB"] and word not in SENTENCE_ADVERBS


DEMONSTRATIVES = {"this": "NN", "that": "NN", "these": "NNS", "those": "NNS"}  # and the noun tag each takes
COORDINATORS = frozenset({"and"})  # "but", "or" add a contrast or a choice the seed does not make
UNCOORDINATED = DETERMINATIVES | WHOLE | {"own"}  # adjectives that determine rather than describe
PRONOUN_NOUNS = frozenset({"one", "ones"})  # "this [whole] [one]": a pronoun, not a noun to give
# round 8: a relative "who" or "for whom" after a demonstrative ("those who like") wants a noun of persons
PERSONAL_RELATIVES = frozenset({"who", "whom", "whose"})
PERSON_NOUNS = frozenset(
    """people person fan fans viewer viewers moviegoer moviegoers audience audiences critic critics actor
    actors star stars director directors filmmaker filmmakers writer writers kids adults folks""".split()
)
# the adverbs a degree adverb grades where it goes in with one ("is [very] [often] amusing"): of frequency
# only. The -ly adverbs the masked LM put there read as degrees of the adjective after them, which no
# second degree adverb grades ("[very] [completely] icky", "[very] [particularly] icky", "[really]
# [completely]": 50 of the 56 RB RB fills the other checks kept on the bench seeds, round 8); "seldom",
# "rarely" deny (negations)
GRADED_FREQUENCY = frozenset({"often", "frequently"})


class Phrases:
    """The ``phrase`` check of ``--insertions phrases`` (round 5, docs/yield-history.md), on the multi-word
    insertions beyond one modifier:

    - a noun given to a demonstrative ("This [film] is", "these [old] [scenes]"): the seed's word is
      "this", "that", "these" or "those", tagged ``DT`` in context (not the complementiser "that"), the
      noun agrees with it in number, is a common noun of the reference treebank's lexicon (WordNet's
      nouns are not shipped here) and names no group of people, in the plural either;
    - a coordinated adjective ("a [long] [and] charming film", "watchable [and] [quiet]"): the
      conjunction is "and", the adjective one that describes (not "its [own] [and] screwed-up", "the
      [whole] [and] ...": ``UNCOORDINATED``);
    - (round 6) a noun modifier ("a [comedy] film", "this [horror] [film]"): one of ``NOUN_MODIFIERS``,
      before a noun of ``FILM_NOUNS`` (the seed's, tagged so in context and no compound's first part,
      or the demonstrative's inserted noun);
    - (round 6) a number ("the [two] roles", "these [two] [films]"): one of ``NUMBERS``, after a
      definite determiner or a possessive, before a plural noun;
    - (round 8) a degree adverb grades an inserted adverb of frequency only (``GRADED_FREQUENCY``), not
      right after a seed's adverb ("always [very] [often]"), and no inserted degree word ("a [really]
      [very] good"); a demonstrative's noun before "who" or "for whom" names persons (``PERSON_NOUNS``).
    """

    name = "phrase"

    def passes(self, candidates: Sequence[Candidate]) -> list[bool]:
        return [self._fits(c) for c in candidates]

    @staticmethod
    def _fits(candidate: Candidate) -> bool:
        template = candidate.template
        words = [w.lower() for w in candidate.words]
        if "CC" in template.tags and (
            any(w not in COORDINATORS for w, tag in zip(words, template.tags) if tag == "CC")
            or any(w in UNCOORDINATED for w, tag in zip(words, template.tags) if tag == "JJ")
        ):
            return False
        for n in range(len(words) - 1):
            if template.masks[n][0] != template.masks[n + 1][0]:
                continue
            pair = template.tags[n : n + 2]
            # "is [very] [often] amusing", not "[very] [really] good" nor "always [very] [often]"
            if pair == ("RB", "RB") and (words[n + 1] not in GRADED_FREQUENCY or _after_adverb(candidate, n)):
                return False
            if pair == ("RB", "JJ") and words[n + 1] in DEGREE:  # no adjective to grade: "a [really] [very]"
                return False
        demonstrative = template.lhs == "NP" and template.rhs_from == ("DT",)
        for n, (word, tag) in enumerate(zip(words, template.tags)):
            if tag == "NN" and not (demonstrative and n == len(words) - 1):  # a noun modifier
                head = words[n + 1] if demonstrative else _seed_noun(candidate, n, ("NN", "NNS"))
                if word not in NOUN_MODIFIERS or head not in FILM_NOUNS:
                    return False
            if tag == "CD" and not (word in NUMBERS and (demonstrative or _counts(candidate, n))):
                return False
        if not demonstrative:
            return True
        index = template.masks[0][0] - 1
        a, _, tags = sentence_at(candidate.seed_tags, index)
        wanted = DEMONSTRATIVES.get(template.parse.tokens[index].lower())
        noun = words[-1]
        after = template.masks[-1][0]  # "those [x] who", "those [x] for whom"
        relative = any(t.lower() in PERSONAL_RELATIVES for t in template.parse.tokens[after : after + 2])
        return (
            wanted is not None
            and tags[index - a] == "DT"
            and noun in common_nouns()[wanted] - PRONOUN_NOUNS
            and noun.removesuffix("s") not in identity_terms()  # "those [young] [americans]"
            and (not relative or noun in PERSON_NOUNS)  # "those [action] [scenes] for whom"
        )


def _seed_noun(candidate: Candidate, n: int, tags: tuple[str, ...]) -> str | None:
    """The seed's word right after inserted word ``n`` if it is a noun of one of ``tags`` in context that
    ends its compound (no noun after it), else None (a capitalised word, a name's, is in no word list)."""
    index = candidate.template.masks[n][0]
    tokens = candidate.template.parse.tokens
    a, b, seed_tags = sentence_at(candidate.seed_tags, index)
    if index >= b or seed_tags[index - a] not in tags:
        return None
    return None if index + 1 < b and seed_tags[index + 1 - a] in NOUN_TAGS else tokens[index]


def _after_adverb(candidate: Candidate, n: int) -> bool:
    """Inserted word ``n`` goes right after a seed's adverb ("he is always [very] [often] sympathetic")."""
    index = candidate.template.masks[n][0]
    a, _, tags = sentence_at(candidate.seed_tags, index)
    return index > a and tags[index - 1 - a] in ADVERB_TAGS


def _counts(candidate: Candidate, n: int) -> bool:
    """Inserted number ``n`` follows a definite determiner ("the", "these", a possessive) and counts the
    seed's plural noun after the words inserted there ("the [two] films", "the [two] [new] films")."""
    masks, tokens = candidate.template.masks, candidate.template.parse.tokens
    index = masks[n][0]
    if not index or tokens[index - 1].lower() not in DEFINITE:
        return False
    return _seed_noun(candidate, n, ("NNS",)) is not None


def seed_sites(mode: str, tokens: Sequence[str]) -> Callable[[Masks], bool] | None:
    """The placements of a seed (``tokens``) whose words' neighbours an ``--insertions`` mode accepts
    whatever the fill, told before the masked LM scores anything (``Differentiator``'s ``usable``): under
    ``phrases`` a noun modifier only before a noun of ``FILM_NOUNS`` and after no other noun modifier, a
    demonstrative's noun only after a demonstrative of its number, a number only after a definite
    determiner. The ``phrase`` check reads the same in the filled sentence."""
    if mode != "phrases":
        return None

    def fits(masks: Masks) -> bool:
        for n, (index, tag) in enumerate(masks):
            before = tokens[index - 1].lower() if index else ""
            after = tokens[index].lower() if index < len(tokens) else ""
            last = n + 1 == len(masks) or masks[n + 1][0] != index
            # the last noun at a place is a film noun's modifier or a demonstrative's noun of its number
            # ("This [film] is", "those [old] [people] who"; not "This [old] [films]", "a [family] [people]")
            if tag == "NNS" and last and DEMONSTRATIVES.get(before) != "NNS":
                return False
            if tag == "NN" and last and after not in FILM_NOUNS and DEMONSTRATIVES.get(before) != "NN":
                return False
            if tag == "NN" and before in NOUN_MODIFIERS:  # "costume [comedy] drama", "costume" tagged JJ
                return False
            if tag == "CD" and before not in DEFINITE:
                return False
        return True

    return fits


def insertion_lexicon(
    lexicon: Lexicon, mode: str, domains: Sequence[Lexicon] = (), adjectives: str = "any"
) -> InsertionJudge:
    """What judges the polarity of the words an expansion inserts under ``mode`` (validation's polarity
    check and the fill vocabulary; the capability's requirement and the intensifier sites read
    ``lexicon``): ``GlossScoredNeutral`` over SentiWordNet under ``phrases``, else ``lexicon`` itself;
    with ``domains`` (``--domain-lexicon``), neither where one of them calls a word polar; and with
    ``adjectives="relational"`` (``--adjectives``), no adjective but a relational one.
    Only SentiWordNet scores the function adverbs and property adjectives from glosses; VADER's valences
    for "certainly" or "truly" and a user's own list are meant, and kept."""
    judge: InsertionJudge = lexicon
    if mode == "phrases" and getattr(lexicon, "name", None) == "sentiwordnet":
        judge = GlossScoredNeutral(lexicon)
    if domains:
        judge = AlsoPolar(judge, tuple(domains))
    if adjectives == "relational":
        judge = RelationalAdjectives(judge, relational_adjectives())
    return judge


class GlossScoredNeutral:
    """SentiWordNet as it judges the words an expansion inserts under ``phrases`` (``insertion_lexicon``):
    itself, but for ``FUNCTION_ADVERBS``, neutral as adverbs, and ``PROPERTY_ADJECTIVES``, neutral as
    adjectives. ``describe`` exists where the lexicon's does (a lexicon that cannot say what it holds is
    not cached) and names both, so a suite's manifest records them."""

    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon

    NEUTRAL = {"adv": FUNCTION_ADVERBS, "adj": PROPERTY_ADJECTIVES}  # by coarse part of speech

    def is_neutral(self, word: str, pos: str | None) -> bool:
        return word in self.NEUTRAL.get(pos or "", ()) or self.lexicon.is_neutral(word, pos)

    @property
    def describe(self) -> Callable[[], dict]:
        inner = self.lexicon.describe  # an AttributeError where the lexicon has none: so has this
        return lambda: {
            **inner(),
            "neutral_adverbs": sorted(FUNCTION_ADVERBS),
            "neutral_adjectives": sorted(PROPERTY_ADJECTIVES),
        }


class AlsoPolar:
    """A word is neutral to insert where ``judge`` says so and no lexicon of ``domains`` calls it polar: a
    general lexicon misses words a domain uses for praise or blame ("predictable" in film reviews;
    SentiWordNet, the opinion lexicon and VADER all leave it neutral), and a model under test that
    fuzz searches for flips finds exactly those. ``describe`` as ``GlossScoredNeutral``'s."""

    def __init__(self, judge: InsertionJudge, domains: tuple[Lexicon, ...]):
        self.judge, self.domains = judge, domains

    def is_neutral(self, word: str, pos: str | None) -> bool:
        return self.judge.is_neutral(word, pos) and not _polar_in(self.domains, word, pos)

    @property
    def describe(self) -> Callable[[], dict]:
        inner, domains = self.judge.describe, [domain.describe for domain in self.domains]
        return lambda: {**inner(), "domain_lexicons": [describe() for describe in domains]}


class RelationalAdjectives:
    """``--adjectives relational``: a word is neutral to insert where ``judge`` says so and, if an
    adjective, is one of ``words``, the relational adjectives (``lexicon.relational_adjectives``): "the
    [visual] effects", not "the [predictable] characters". What a general lexicon leaves unscored and a
    domain uses to praise or blame is a descriptive adjective ("predictable", "useful", "incredible",
    "complex"); barring those one lexicon at a time moved fuzz's search to the next (docs/fuzz.md), so this
    admits adjectives by what they are rather than bars them by what a list knows. ``describe`` as
    ``GlossScoredNeutral``'s."""

    def __init__(self, judge: InsertionJudge, words: frozenset[str]):
        self.judge, self.words = judge, words

    def is_neutral(self, word: str, pos: str | None) -> bool:
        return self.judge.is_neutral(word, pos) and (pos != "adj" or word in self.words)

    @property
    def describe(self) -> Callable[[], dict]:
        inner, count = self.judge.describe, len(self.words)
        return lambda: {**inner(), "adjectives": f"relational (WordNet's first sense a pertainym: {count})"}


if TYPE_CHECKING:  # what judges an inserted word's polarity (``insertion_lexicon``)
    InsertionJudge = Lexicon | GlossScoredNeutral | AlsoPolar | RelationalAdjectives


def _polar_in(domains: Sequence[Lexicon], word: str, pos: str | None) -> set[str]:
    """The polarities the lexicons of ``domains`` give ``word`` (none for a neutral or unknown word)."""
    return {polarity for domain in domains if (polarity := domain.polarity(word, pos)) not in (None, NEUTRAL)}


def carries(lexicon: Lexicon, label: object, word: str) -> bool:
    """Whether ``word`` is an adjective whose polarity in ``lexicon`` is ``label`` (positive or negative)."""
    return label in (POSITIVE, NEGATIVE) and lexicon.polarity(word.lower(), "adj") == label


def _same_stem(adverb: str, adjective: str) -> bool:
    """An intensifier made from the adjective it would grade ("a [remarkably] remarkable film")."""
    return adverb[:5] == adjective[:5]


def intensifies(lexicon: Lexicon, domains: Sequence[Lexicon] = ()) -> Callable[[Candidate, int], bool]:
    """Whether a candidate's ``n``-th inserted word may be polar where it goes (``validate.Polarity``'s
    ``exempt``): an intensifier (``INTENSIFIERS``) filling an adverb mask right before a seed's adjective
    whose polarity in ``lexicon`` is the seed's label ("a [terribly] funny film" for a positive seed, not
    for a negative one, nor "not [terribly] funny", whose adjective does not carry its seed's label), and
    that no other adverb grades ("irredeemably [terribly] awful", "[very] [incredibly] vivid"). With
    ``domains``, only an intensifier none of them calls anything but the label: SST's raters call
    "terribly" negative and "remarkably" positive, so "[remarkably] uneven" is no negative seed's."""

    def exempt(candidate: Candidate, n: int) -> bool:
        masks = candidate.template.masks
        index, tag = masks[n]
        word = candidate.words[n].lower()
        if tag != "RB" or word not in INTENSIFIERS:
            return False
        if _polar_in(domains, word, "adv") - {candidate.seed.label}:
            return False
        if any(i == index for m, (i, _) in enumerate(masks) if m != n):  # "[very] [incredibly] vivid"
            return False
        a, b, tags = sentence_at(candidate.seed_tags, index)
        if index >= b or tags[index - a] != "JJ":
            return False
        if _after_adverb(candidate, n):  # "irredeemably [terribly] awful"
            return False
        head = candidate.template.parse.tokens[index].lower()
        return carries(lexicon, candidate.seed.label, head) and not _same_stem(word, head)

    return exempt


def intensifier_sites(lexicon: Lexicon) -> Callable[[MaskedTemplate, TestCase], bool]:
    """Whether a template's masks are one adverb right before a seed word that ``lexicon`` calls an
    adjective of the seed's label: where ``fill`` also asks the masked LM for its best intensifiers
    (``INTENSIFIER``). It ranks them far below the neutral adverbs (26th to 258th before an adjective with
    the stand-in), so a beam over every adverb never reaches them; validation still decides each fill
    (``intensifies``: the tag in context, no other adverb grading the adjective)."""

    def site(template: MaskedTemplate, seed: TestCase) -> bool:
        if len(template.masks) != 1:
            return False
        (index, tag), tokens = template.masks[0], template.parse.tokens
        return (
            tag == "RB"
            and index < len(tokens)
            and tokens[index].lower() not in UNGRADED  # validation would reject every intensifier there
            and carries(lexicon, seed.label, tokens[index])
        )

    return site


Limits = dict[str, frozenset[str]]  # tag -> words


def vocabulary_limits(mode: str) -> tuple[Limits, Limits, Limits]:
    """The fill vocabulary's limits of an ``--insertions`` mode (``VocabularyFilter``'s ``closed``,
    ``excluded`` and ``polar``): under ``phrases`` the words its checks reject whatever the context, so
    that the masked LM's beam is not spent on them (coordinators other than "and", numbers other than
    "two" to "ten", determinatives as adjectives, circumstances and hedges as adverbs, and before another
    inserted word any adverb but the adverb check's degree adverbs and any noun but a noun modifier), and
    the intensifiers, polar words that validation keeps where they grade an adjective carrying the label
    (``intensifies``; ``modifiers`` too, whose adverbs they are), which alone fill an ``INTENSIFIER`` mask
    (``intensifier_sites``). ``any`` and ``content`` keep their vocabulary, and so their output."""
    if mode not in INTENSIFYING:
        return {}, {}, {}
    polar, intensifiers = {"RB": INTENSIFIERS}, {INTENSIFIER: INTENSIFIERS}
    if mode != "phrases":
        return intensifiers, {}, polar
    closed = {
        **intensifiers,
        "CC": COORDINATORS,
        "CD": NUMBERS,
        # not "very": a beam of 4 put its every row there, and the spread had capped it in the call
        # (round 8: on the bench seeds no RB JJ NN, RB JJ CC or RB RB fill kept; "a [rather] [long] film")
        "RB" + MODIFYING: ATTRIBUTIVE_DEGREE - {"very"},
        "NN" + MODIFYING: NOUN_MODIFIERS,
    }
    return closed, {"JJ": NOT_DESCRIBING, "RB": CIRCUMSTANCES | HEDGES}, polar


def checks_for(mode: str) -> list[Check]:
    """The word checks of an ``--insertions`` mode (none under ``--compat``, which the caller decides):
    ``words.py``'s in every mode, the determinative, adverb and word order checks where modifiers are
    inserted."""
    modifiers: list[Check] = (
        [Determinatives(), Adverbs(), WordOrder()] if mode in ("modifiers", "phrases") else []
    )
    if mode == "phrases":
        modifiers.append(Phrases())
    return [
        *modifiers,
        Dictionary(),
        IdentityTerms(),
        PolarityItems(),
        Articles(),
    ]
