"""CheckList's ``Editor``: fill templates from lexicons, and ask a masked language model for words.

It runs on autocheck's authoring toolkit: templates are compiled and filled by ``author.templates`` (so
``{first_name}``, ``{a:profession}``, ``{city.country}``, numbered placeholders ``{first_name1}``,
functions and ``{mask}`` mean there what they mean here), lexicons are autocheck's shipped ones
(``data/lexicons/``) plus those you add, suggestions come from ``expand.mlm.MaskedLM`` and WordNet
(``author.words``). Results therefore differ from CheckList's where the lexicons or the masked LM differ.

Sampling (``nsamples``) is seeded (``Editor(seed=...)``), so the same call gives the same examples.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..author.lexicons import load_lexicon, shipped_lexicons
from ..author.templates import compile_templates, template_cases
from ..requirements import Capability
from ..store import InputError
from ..tasks import Task

MASK = "{mask}"
_MASK_SLOT = "mask_fill_"  # a placeholder standing for the mask token while the other placeholders are filled


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


class Editor:
    """Templates, lexicons and masked-LM suggestions. ``model_name``: the masked LM (a Hugging Face id or a
    local directory; autocheck's default ``bert-base-uncased``), loaded the first time it is needed."""

    def __init__(self, language: str = "english", model_name: str | None = None, seed: int = 0):
        if language != "english":
            raise InputError(
                "Editor: autocheck's lexicons and tagger are English; language must be 'english'"
            )
        self.model_name = model_name
        self.seed = seed
        self._mlm: Any = None
        self._added: dict[str, list[str]] = {}

    # ------------------------------------------------------------------ lexicons

    @property
    def lexicons(self) -> Munch:
        """Every lexicon by name: autocheck's shipped ones and the ones added with ``add_lexicon``."""
        out = Munch({name: [e.value for e in load_lexicon(name)] for name in shipped_lexicons()})
        out.update(self._added)
        return out

    def add_lexicon(
        self, name: str, values: Iterable[str], overwrite: bool = False, remove_duplicates: bool = False
    ) -> None:
        if name in self.lexicons and not overwrite:
            raise InputError(f"lexicon '{name}' exists; pass overwrite=True to replace it")
        values = [str(v) for v in values]
        self._added[name] = list(dict.fromkeys(values)) if remove_duplicates else values

    # ------------------------------------------------------------------ templates

    @property
    def mlm(self) -> Any:
        if self._mlm is None:
            from ..config import DEFAULT_MLM
            from ..expand.mlm import MaskedLM

            self._mlm = MaskedLM.from_pretrained(self.model_name or DEFAULT_MLM)
        return self._mlm

    def template(
        self,
        templates: str | Sequence[str] | tuple[str, ...],
        nsamples: int | None = None,
        product: bool = True,
        remove_duplicates: bool = False,
        mask_only: bool = False,
        unroll: bool = False,
        labels: Any = None,
        meta: bool = False,
        save: bool = False,
        top: int = 10,
        **kwargs: Any,
    ) -> MunchWithAdd:
        """Every filling of ``templates`` (a string, a list of strings whose results are joined, or a tuple
        of strings filled together into tuples); placeholders take values from the keyword arguments
        (lists of words) or the lexicons; ``{mask}`` takes the masked LM's ``top`` words. Repeated texts
        are always dropped (``remove_duplicates`` is accepted for CheckList's sake). Returns
        ``.data`` (and ``.labels`` when ``labels`` is given, ``.meta`` — the value of each placeholder —
        when ``meta``, ``.templates`` when ``save``)."""
        unsupported = {"product=False": not product, "mask_only=True": mask_only, "unroll=True": unroll}
        if any(unsupported.values()):
            given = ", ".join(k for k, v in unsupported.items() if v)
            raise InputError(f"Editor.template: {given} is not supported (every combination is filled)")
        if isinstance(templates, list):
            parts = [
                self.template(
                    t,
                    nsamples,
                    product,
                    remove_duplicates,
                    mask_only,
                    unroll,
                    labels,
                    meta,
                    save,
                    top,
                    **kwargs,
                )
                for t in templates
            ]
            total = parts[0]
            for part in parts[1:]:
                total = total + part
            return total
        fields = templates if isinstance(templates, tuple) else (templates,)
        names = tuple(f"field{i}" for i in range(len(fields)))
        lexicons = {**self._added, **{k: _words(k, v) for k, v in kwargs.items()}}
        spec: dict[str, Any] = {
            "id": "editor",
            "test_type": "INV",  # no label: labels are the caller's to attach
            "templates": [
                {"id": "t", **dict(zip(names, fields)), "lexicons": lexicons, "nsamples": nsamples}
            ],
            "mask": {"top": top},
        }
        if nsamples is None:
            del spec["templates"][0]["nsamples"]
        task = Task(name="editor", inputs=names)
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
        chosen = template_cases(capability, task, self.seed)
        needs_mlm = any(MASK in f for f in fields)
        data, metas = [], []
        for case in chosen.cases(self.mlm if needs_mlm else None, top):
            values = tuple(case.inputs[n] for n in names)
            data.append(values if isinstance(templates, tuple) else values[0])
            metas.append(dict(case.provenance.get("slots", {})))
        out = MunchWithAdd(data=data)
        if labels is not None:
            out.labels = list(labels) if isinstance(labels, list) else [labels] * len(data)
        if meta:
            out.meta = metas
        if save:
            out.templates = [templates]
        return out

    # ------------------------------------------------------------------ suggestions

    def _masked_texts(self, templates: str | Sequence[str], **kwargs: Any) -> list[str]:
        texts = [templates] if isinstance(templates, str) else list(templates)
        if not all(MASK in t for t in texts):
            raise InputError(f"Editor.suggest: every template needs {MASK}")
        token = self.mlm.tokenizer.mask_token
        slot: dict[str, Any] = {_MASK_SLOT: [token]}  # (a keyword argument, not one of template's options)
        filled = self.template([t.replace(MASK, "{" + _MASK_SLOT + "}") for t in texts], **slot, **kwargs)
        return list(dict.fromkeys(filled.data))

    def _ranked(self, texts: list[str], n: int, keep: set[str] | None = None) -> list[tuple[Any, float]]:
        """Fills of the masks, ranked by their summed probability over ``texts`` (CheckList's ranking)."""
        import math

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

    def suggest_replace(
        self,
        text: str,
        word: str,
        full_sentences: bool = False,
        words_and_sentences: bool = False,
        n: int = 30,
    ) -> list:
        """Words that could replace ``word`` in ``text`` (or the sentences with them, or both)."""
        if word not in text:
            raise InputError(f"suggest_replace: {word!r} is not in {text!r}")
        masked = text.replace(word, MASK, 1)
        words = [w for w in self.suggest(masked, n=n + 1) if w != word][:n]
        sentences = [masked.replace(MASK, w, 1) for w in words]
        if words_and_sentences:
            return list(zip(words, sentences))
        return sentences if full_sentences else words

    def _related(self, templates: str | Sequence[str], word: str, related: set[str], n: int) -> list[str]:
        texts = [templates] if isinstance(templates, str) else list(templates)
        masked = [t.replace(word, MASK, 1) for t in texts if word in t]
        if not masked:
            raise InputError(f"{word!r} does not occur in the templates")
        related = {w.lower() for w in related} - {word.lower()}
        if not related:
            return []
        return [w for w, _ in self._ranked(self._masked_texts(masked), n, keep=related)]

    def synonyms(self, templates: str | Sequence[str], word: str, n: int = 30, **kwargs: Any) -> list[str]:
        """WordNet synonyms of ``word`` that the masked LM finds fit where it stands in ``templates``."""
        from ..author import words as wordnet

        return self._related(templates, word, _wordnet(wordnet.synonyms, word), n)

    def antonyms(self, templates: str | Sequence[str], word: str, n: int = 30, **kwargs: Any) -> list[str]:
        """WordNet antonyms of ``word`` that fit where it stands in ``templates``."""
        from ..author import words as wordnet

        return self._related(templates, word, _wordnet(wordnet.antonyms, word), n)

    def related_words(
        self, templates: str | Sequence[str], words: str | Sequence[str], n: int = 30, **kwargs: Any
    ) -> list[str]:
        """Words of the same kind as ``words`` (WordNet siblings: other hyponyms of their hypernyms) that
        fit where the first of them stands in ``templates``."""
        words = [words] if isinstance(words, str) else list(words)
        return self._related(templates, words[0], set().union(*(_siblings(w) for w in words)), n)


def _words(name: str, value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable):
        return list(dict.fromkeys(str(v) for v in value))
    raise InputError(
        f"Editor.template: {name}= must be a word or a list of words, got {type(value).__name__}"
    )


def _wordnet(relate: Any, word: str) -> set[str]:
    return {w for pos in ("adj", "verb", "noun", "adv") for w in relate(word, pos)}


def _siblings(word: str) -> set[str]:
    """Other hyponyms of the hypernyms of ``word``'s senses (WordNet through NLTK; empty without it)."""
    try:
        from nltk.corpus import wordnet

        synsets = wordnet.synsets(word.replace(" ", "_"))
    except LookupError:
        return set()
    return {
        lemma.name()
        for synset in synsets
        for hypernym in synset.hypernyms()
        for sibling in hypernym.hyponyms()
        for lemma in sibling.lemmas()
        if "_" not in lemma.name()
    }


__all__ = ["Editor", "Munch", "MunchWithAdd"]
