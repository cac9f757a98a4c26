"""CheckList's ``Editor``: fill templates from lexicons, and ask a masked language model for words.

It runs on autocheck's authoring toolkit: templates are compiled and filled by ``author.templates`` (so
``{first_name}``, ``{a:profession}``, ``{city.country}``, numbered placeholders ``{first_name1}``,
functions and ``{mask}`` mean there what they mean here), lexicons are autocheck's shipped ones
(``data/lexicons/``) plus those you add, suggestions come from ``expand.mlm.MaskedLM`` and WordNet
(``languages.en.words``). Results therefore differ from CheckList's where the lexicons or the masked LM
differ.

Sampling (``nsamples``) is seeded (``Editor(seed=...)``), so the same call gives the same examples.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..api.display import escape
from ..author.templates import compile_templates, template_cases
from ..config import DEFAULT_MLM
from ..languages import LANGUAGES, LanguageProfile
from ..languages.lexicons import load_lexicon, shipped_lexicons
from ..requirements import Capability
from ..resources import ResourceMissing
from ..store import InputError
from ..tagging import coarse_pos
from ..tasks import Task

CHECKLIST_LANGUAGES = {"english": "en"}  # CheckList's names of the languages autocheck has a profile of

MASK = "{mask}"
_MASKED = re.compile(r"\{(?:\w+:)*mask\}")  # {mask}, {a:mask}
_ARTICLE_MASK = re.compile(r"\{an?:mask\}")
_INDEX = re.compile(r"\{([^{}\[\]]+)\[(\d+)\]\}")  # CheckList's {adj[0]}: item 0 of a tuple value
# CheckList's names that are autocheck's under another: {bert} (its older name of {mask}; the notebook that
# built its released sentiment suite uses it) and its lexicons religion_adj and sexual_adj (autocheck's
# religion and sexuality)
_OLDER_NAMES = {"bert": "mask", "religion_adj": "religion", "sexual_adj": "sexuality"}
_OLDER = re.compile(r"\{((?:\w+:)*)(" + "|".join(_OLDER_NAMES) + r")(\d*)\}")


def _current_names(template: str) -> str:
    return _OLDER.sub(lambda m: "{" + m[1] + _OLDER_NAMES[m[2]] + m[3] + "}", template)


_MASK_SLOT = "mask_fill_"  # a placeholder standing for the mask token while the other placeholders are filled
# CheckList asks its masked LM 5 sampled fillings per article, 20 texts at most
_SUGGEST_SAMPLES, _SUGGEST_TEXTS = 5, 20


class Munch(dict):
    """A dict whose keys read as attributes (``ret.data``), as CheckList's results are."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        del self[name]


class MunchWithAdd(Munch):
    """Template results that add up: ``ret = editor.template(a) + editor.template(b)`` joins their lists."""

    def __add__(self, other: MunchWithAdd) -> MunchWithAdd:
        out = MunchWithAdd()
        for key in dict.fromkeys([*self, *other]):
            a, b = self.get(key), other.get(key)
            if a is None or b is None:
                raise ValueError(f"cannot add template results: only one has '{key}'")
            out[key] = list(a) + list(b)
        return out

    def __iadd__(self, other: MunchWithAdd) -> MunchWithAdd:
        return self + other


class Suggestions(list):
    """Masked-LM suggestions that show, in a notebook, as a table of each word in its template."""

    def __init__(self, words: Iterable[Any], template: str):
        super().__init__(words)
        self.template = template

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{i}</td><td>{escape(w if isinstance(w, str) else ' '.join(w))}</td>"
            f"<td>{escape(_put(self.template, w))}</td></tr>"
            for i, w in enumerate(self)
        )
        return (
            f"<div class='autocheck-display'><b>Suggestions for {escape(self.template)}</b><table>"
            f"<tr><th>#</th><th>words</th><th>in the template</th></tr>{rows}</table></div>"
        )


def _put(template: str, words: Any) -> str:
    """``template`` with its masks replaced by the suggested word(s)."""
    for word in [words] if isinstance(words, str) else words:
        template = _MASKED.sub(lambda _, w=word: w, template, count=1)  # type: ignore[misc]
    return template


class Editor:
    """Templates, lexicons and masked-LM suggestions. ``language``: a language profile's name (``languages``:
    ``"en"``, or a plug-in's; CheckList's ``"english"`` is ``"en"``), whose lexicons, word rules and tagger
    the editor uses. ``model_name``: the masked LM (a Hugging Face id or a local directory; by default the
    profile's, ``bert-base-uncased`` for English), loaded the first time it is needed."""

    def __init__(
        self,
        language: str = "english",
        model_name: str | None = None,
        seed: int = 0,
        max_cases: int | None = None,
    ):
        try:
            self.language = LANGUAGES.get(CHECKLIST_LANGUAGES.get(language, language))
        except InputError as e:  # a profile not installed here: a plug-in may add it
            raise ResourceMissing(f"Editor: {e}") from None
        self.model_name = model_name
        self.seed = seed
        self.max_cases = (
            max_cases  # the most combinations filled without nsamples (None: no limit, as CheckList)
        )
        self._mlm: Any = None
        self._added: dict[str, list[str]] = {}
        self.selected_suggestions: list = []

    # ------------------------------------------------------------------ lexicons

    @property
    def lexicons(self) -> Munch:
        """Every lexicon by name: autocheck's shipped ones and the ones added with ``add_lexicon``."""
        folder = self.language.lexicons
        out = Munch(
            {name: [e.value for e in load_lexicon(name, folder)] for name in shipped_lexicons(folder)}
        )
        out.update({old: out[new] for old, new in _OLDER_NAMES.items() if new in out})
        out.update(self._added)
        return out

    def add_lexicon(
        self,
        name: str,
        values: Iterable[str],
        overwrite: bool = False,
        append: bool = False,
        remove_duplicates: bool = False,
    ) -> None:
        """Add lexicon ``name``; ``overwrite`` replaces one that exists, ``append`` adds to it (and
        ``remove_duplicates`` then drops repeated values, keeping the first)."""
        if overwrite and append:
            raise InputError("add_lexicon: either overwrite or append must be False")
        words = [str(v) for v in values]
        if append:
            words = self.lexicons.get(name, []) + words
        elif name in self.lexicons and not overwrite:
            raise InputError(f"lexicon '{name}' exists; pass overwrite=True to replace it")
        self._added[name] = list(dict.fromkeys(words)) if remove_duplicates else words

    # ------------------------------------------------------------------ templates

    @property
    def tg(self) -> Any:
        """CheckList's name for the editor's masked LM (``text_generation.TextGenerator``)."""
        return self.mlm

    @property
    def mlm(self) -> Any:
        if self._mlm is None:
            from ..expand.mlm import MaskedLM

            self._mlm = MaskedLM.from_pretrained(self.model_name or self.language.masked_lm or DEFAULT_MLM)
        return self._mlm

    def template(
        self,
        templates: Any,
        nsamples: int | None = None,
        product: bool = True,
        remove_duplicates: bool = False,
        mask_only: bool = False,
        unroll: bool = False,
        labels: Any = None,
        meta: bool = False,
        save: bool = False,
        top: int = 10,
        max_cases: int | None = None,
        **kwargs: Any,
    ) -> Any:
        """Every filling of ``templates``: a string, or a list, tuple or dict of them (nested as you like),
        each filling giving an object of the same shape (``unroll``: the strings of a list or tuple as
        examples of their own). Placeholders take values from the keyword arguments (lists of words) or the
        lexicons, the same value wherever they occur; ``{mask}`` (and ``{a:mask}``) takes the masked LM's
        ``top`` words. ``labels``: one label for all, a list of labels, or templates filled with the same
        values ("Yes, this is {adj}."). ``remove_duplicates``: no two placeholders of a filling take the
        same value. ``product=False``: the i-th value of every placeholder together (zip) instead of every
        combination. ``max_cases``: the most combinations filled without ``nsamples`` (default the
        editor's: no limit). ``mask_only``: the masked LM's suggestions only, as ``(words, text, score)``.
        Returns ``.data`` (and ``.labels``, ``.meta``: the value of each placeholder, ``.templates``)."""
        if mask_only:
            return self._mask_options(templates, nsamples or top, **kwargs)
        # CheckList's: whether to print its mask suggestions; return_maps, of its older API, no effect
        kwargs.pop("verbose", None)
        kwargs.pop("return_maps", None)
        labels_filled = labels is not None and bool(_leaves(labels))
        structure = (templates, labels) if labels_filled else templates
        leaves = [_INDEX.sub(r"{\1.\2}", _current_names(leaf)) for leaf in _leaves(structure)]
        if not leaves:
            raise InputError("Editor.template: templates hold no string to fill")
        names = tuple(f"field{i}" for i in range(len(leaves)))
        lexicons = {**self._added, **{k: _words(k, v) for k, v in kwargs.items()}}
        spec: dict[str, Any] = {
            "id": "editor",
            "test_type": "INV",  # no label: labels are the caller's to attach
            "templates": [
                {
                    "id": "t",
                    **dict(zip(names, leaves)),
                    "lexicons": lexicons,
                    "distinct": remove_duplicates,
                    "zip": not product,
                    **({"nsamples": nsamples} if nsamples is not None else {}),
                }
            ],
            "mask": {"top": top},
        }
        task = Task(name="editor", inputs=names, language=self.language.name)
        compiled = compile_templates(spec, task, {}, "Editor.template")
        capability = Capability(
            id="editor",
            capability="",
            description="",
            test_type="INV",
            search=(),
            transform=None,
            expected=(),
            spec=spec,
            templates=compiled,
        )
        limit = max_cases or self.max_cases or sys.maxsize
        chosen = template_cases(capability, task, self.seed, max_cases=limit)
        needs_mlm = any(_MASKED.search(leaf) for leaf in leaves)
        data, metas = [], []
        for case in chosen.cases(self.mlm if needs_mlm else None, top):
            filled = _rebuild(structure, iter(case.inputs[n] for n in names))
            data.append(filled)
            metas.append(dict(case.provenance.get("slots", {})))
        out = MunchWithAdd()
        if labels_filled:
            data, filled_labels = [d[0] for d in data], [d[1] for d in data]
        if unroll and data and isinstance(data[0], list | tuple):
            metas = [m for d, m in zip(data, metas) for _ in d]
            if labels_filled:
                filled_labels = [lab for d, lab in zip(data, filled_labels) for _ in d]
            data = [x for d in data for x in d]
        out.data = data
        if labels_filled:
            out.labels = filled_labels
        elif labels is not None:
            out.labels = list(labels) if isinstance(labels, list) else [labels] * len(data)
        if meta:
            out.meta = metas
        if save:
            out.templates = [templates]
        return out

    # ------------------------------------------------------------------ suggestions

    def _masked_texts(self, templates: Any, **kwargs: Any) -> list[str]:
        """Texts to ask the masked LM, as CheckList asks them: 5 sampled fillings of the templates' other
        placeholders (per article: an ``{a:mask}`` is asked as "a [MASK]" and as "an [MASK]"), the mask
        token where ``{mask}`` stands, 20 texts at most: "{first_name} is {mask} than {first_name2}." is
        asked in 5 texts, not in every pair of names."""
        texts = [_current_names(t) for t in _leaves(templates)]
        if not texts or not all(_MASKED.search(t) for t in texts):
            raise InputError(f"Editor.suggest: every template needs {MASK}")
        token = self.mlm.tokenizer.mask_token
        slot: dict[str, Any] = {_MASK_SLOT: [token]}  # (a keyword argument, not one of template's options)
        slot_text = "{" + _MASK_SLOT + "}"
        kwargs.pop("nsamples", None)
        articles = ("a ", "an ") if any(_ARTICLE_MASK.search(t) for t in texts) else ("",)
        masked: list[str] = []
        for article in articles:
            one = [_MASKED.sub(slot_text, _ARTICLE_MASK.sub(article + slot_text, t)) for t in texts]
            masked += self.template(one, unroll=True, nsamples=_SUGGEST_SAMPLES, **slot, **kwargs).data
        return list(dict.fromkeys(masked))[:_SUGGEST_TEXTS]

    def _mask_options(self, templates: Any, n: int, **kwargs: Any) -> list[tuple[list[str], str, float]]:
        """CheckList's ``mask_only`` result: the best fills as ``(words, first text filled, score)``."""
        texts = self._masked_texts(templates, **kwargs)
        out = []
        for found, score in self._ranked(texts, n):
            words = list(found) if isinstance(found, tuple) else [found]
            text = texts[0]
            for word in words:
                text = text.replace(self.mlm.tokenizer.mask_token, word, 1)
            out.append((words, text, score))
        return out

    def _ranked(self, texts: list[str], n: int, keep: set[str] | None = None) -> list[tuple[Any, float]]:
        """Fills of the masks, ranked by their summed probability over ``texts`` (CheckList's ranking)."""
        top = 500 if keep is not None else n
        totals: dict[tuple[str, ...], float] = {}
        for fills in self.mlm.suggest_texts(texts, beam_size=max(top, 20), top_n=top):
            for words, score in fills:
                if keep is None or all(w.lower() in keep for w in words):
                    key = tuple(words)
                    totals[key] = totals.get(key, 0.0) + math.exp(score)
        ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
        return [(words[0] if len(words) == 1 else words, score) for words, score in ranked]

    def suggest(
        self, templates: str | Sequence[str], return_score: bool = False, n: int = 30, **kwargs: Any
    ) -> list:
        """The masked LM's best words for ``{mask}`` (tuples for several masks), over every filling of the
        templates' other placeholders; ``(word, score)`` pairs with ``return_score``."""
        ranked = self._ranked(self._masked_texts(templates, **kwargs), n)
        return ranked if return_score else [w for w, _ in ranked]

    def visual_suggest(self, templates: Any, n: int = 50, **kwargs: Any) -> Suggestions:
        """The masked LM's suggestions for ``templates`` as a table in a notebook (CheckList shows a widget
        to tick them). The suggestions are kept in ``editor.selected_suggestions``, all of them: keep the
        ones you want with ordinary list operations."""
        found = self.suggest(templates, n=n, **kwargs)
        if not found:
            raise InputError("Editor.visual_suggest: no valid suggestions for the given template")
        self.selected_suggestions = Suggestions(found, _leaves(templates)[0])
        return self.selected_suggestions

    def suggest_replace(
        self,
        text: str,
        word: str,
        full_sentences: bool = False,
        words_and_sentences: bool = False,
        n: int = 30,
        beam_size: int | None = None,
    ) -> list:
        """Words that could replace ``word`` in ``text`` (or the sentences with them, or both). ``beam_size``
        (CheckList's, for its masked LM's search) is accepted; the masked LM's own search is used."""
        if word not in text:
            raise InputError(f"suggest_replace: {word!r} is not in {text!r}")
        masked = text.replace(word, MASK, 1)
        words = [w for w in self.suggest(masked, n=n + 1) if w != word][:n]
        sentences = [masked.replace(MASK, w, 1) for w in words]
        if words_and_sentences:
            return list(zip(words, sentences))
        return sentences if full_sentences else words

    def _related(
        self, relation: str, templates: Any, words: Sequence[str], n: int, **kwargs: Any
    ) -> list[str]:
        """The WordNet ``relation`` words of ``words`` (in the part of speech the first has in the
        templates) that the masked LM finds fit where the first stands, best first."""
        rules = self.language.words
        if not hasattr(rules, relation):
            raise InputError(
                f"Editor: the language profile '{self.language.name}' has no word rule '{relation}'"
            )
        word = words[0]
        # the word where it stands as a word, not inside a placeholder ("{moreless} more": the second)
        where = re.compile(rf"(?<![\w{{]){re.escape(word)}(?!\w)")
        masked = [where.sub(MASK, t, count=1) for t in _leaves(templates) if where.search(t)]
        if not masked:
            raise InputError(f"{word!r} does not occur in the templates")
        texts = self._masked_texts(masked, **_fill_options(kwargs))
        pos = _pos_of(word, texts[0].replace(self.mlm.tokenizer.mask_token, word, 1), self.language)
        parts = [pos] if pos else ["adj", "verb", "noun", "adv"]
        relate = getattr(rules, relation)
        related = {x.lower() for w in words for p in parts for x in relate(w, p)} - {word.lower()}
        # a word of no open part of speech ("than", "for") has no relations in a full WordNet either
        if not related and pos and hasattr(rules, "missing_parts"):  # WordNet's: English
            missing = set(rules.missing_parts()) & {rules.part_name(p) for p in parts}
            if missing:  # an empty answer would hide that the data to find one is not there
                raise ResourceMissing(
                    f"Editor: no {relation} of {word!r} ({pos}) in the installed "
                    f"WordNet, which has no {', '.join(sorted(missing))}; install the full WordNet: "
                    "python -m nltk.downloader wordnet"
                )
            return []
        return [w for w, _ in self._ranked(texts, n, keep=related)]

    def synonyms(self, templates: Any, word: str, n: int = 30, **kwargs: Any) -> list[str]:
        """WordNet synonyms of ``word`` that the masked LM finds fit where it stands in ``templates``."""
        return self._related("synonyms", templates, [word], n, **kwargs)

    def antonyms(self, templates: Any, word: str, n: int = 30, **kwargs: Any) -> list[str]:
        """WordNet antonyms of ``word`` that fit where it stands in ``templates``."""
        return self._related("antonyms", templates, [word], n, **kwargs)

    def hypernyms(self, templates: Any, word: str, n: int = 30, **kwargs: Any) -> list[str]:
        """WordNet hypernyms (more general words) of ``word`` that fit where it stands in ``templates``."""
        return self._related("hypernyms", templates, [word], n, **kwargs)

    def hyponyms(self, templates: Any, word: str, n: int = 30, **kwargs: Any) -> list[str]:
        """WordNet hyponyms (more specific words) of ``word`` that fit where it stands in ``templates``."""
        return self._related("hyponyms", templates, [word], n, **kwargs)

    def related_words(
        self, templates: Any, words: str | Sequence[str], n: int = 30, **kwargs: Any
    ) -> list[str]:
        """Words of the same kind as ``words`` (WordNet siblings: other hyponyms of their hypernyms) that
        fit where the first of them stands in ``templates``."""
        words = [words] if isinstance(words, str) else list(words)
        return self._related("siblings", templates, words, n, **kwargs)


def _pos_of(word: str, text: str, profile: LanguageProfile) -> str | None:
    """The part of speech (adj, noun, verb, adv) ``word`` has in ``text``, tagged in context by the
    language's tagger."""
    tokens = profile.tokenize(text)
    first = word.split()[0]
    for i, tag in enumerate(profile.pos_tag([tokens.words])[0]):
        if tokens.words[i] == first:
            return coarse_pos(tag)
    return None


def _fill_options(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The placeholders' values among a WordNet method's options (CheckList's ``threshold``, ``depth`` and
    ``pos`` tune its own ranking, which the masked LM's ranking replaces here)."""
    return {k: v for k, v in kwargs.items() if k not in ("threshold", "depth", "pos")}


def _leaves(structure: Any) -> list[str]:
    """The strings of a template structure (strings, lists, tuples and dicts of them), in order."""
    if isinstance(structure, str):
        return [structure]
    if isinstance(structure, dict):
        structure = list(structure.values())
    if isinstance(structure, list | tuple):
        return [leaf for part in structure for leaf in _leaves(part)]
    return []


def _rebuild(structure: Any, filled: Iterator[str]) -> Any:
    """``structure`` with each string replaced by the next filled one (other leaves kept)."""
    if isinstance(structure, str):
        return next(filled)
    if isinstance(structure, dict):
        return {k: _rebuild(v, filled) for k, v in structure.items()}
    if isinstance(structure, list | tuple):
        return type(structure)(_rebuild(part, filled) for part in structure)
    return structure


def _words(name: str, value: Any) -> list[Any]:
    """A keyword argument's values as lexicon entries: a word as itself; a tuple or list as an entry whose
    items are its attributes "0", "1"... (``{adj[0]}``); a dict (a ``Munch``) as one whose keys are
    (``{p.v1}``)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable):
        entries: dict[str, Any] = {}
        for v in value:
            if isinstance(v, tuple | list):
                v = {"value": str(v), **{str(i): x for i, x in enumerate(v)}}
            elif isinstance(v, Mapping):
                v = {"value": str(v), **v}
            entries.setdefault(v["value"] if isinstance(v, dict) else str(v), v)
        return list(entries.values())
    raise InputError(
        f"Editor.template: {name}= must be a word or a list of words, got {type(value).__name__}"
    )


__all__ = ["Editor", "Munch", "MunchWithAdd", "Suggestions"]
