"""CheckList's ``Perturb``: ``Perturb.perturb(data, fn)`` and the perturbation functions, on autocheck's
perturbations (``author.perturb``).

Each function takes a string or a spaCy ``Doc`` (read as its text) and returns what CheckList's returns: a
string (``add_typos``, ``expand_contractions``, ``contract``, ``add_negation``, ``remove_negation``,
``strip_punctuation``), a list of strings (``contractions``, ``punctuation``, ``change_names``,
``change_location``, ``change_number``; with ``meta=True`` a ``(texts, metas)`` pair), or None when it does
not apply. Random ones take ``seed``; without one the seed is derived from the text, so the same text is
always perturbed the same way (CheckList draws from the global random state instead).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..author import perturb as P
from ..store import InputError, rng_for
from .editor import MunchWithAdd


def _text(doc: Any) -> str:
    return doc if isinstance(doc, str) else getattr(doc, "text", str(doc))


def _rng(text: str, name: str, seed: int | None) -> np.random.Generator:
    return np.random.default_rng(seed) if seed is not None else rng_for(0, f"checklist/{name}/{text}")


def _versions(name: str, doc: Any, seed: int | None = None, **options: Any) -> list[P.Perturbed]:
    text = _text(doc)
    return [
        p
        for p in P.perturb(name, {"text": text}, _rng(text, name, seed), **options)
        if p.inputs["text"] != text
    ]


def _one(name: str, doc: Any, **options: Any) -> str | None:
    found = _versions(name, doc, **options)
    return found[0].inputs["text"] if found else None


def _many(name: str, doc: Any, meta: bool, **options: Any) -> Any:
    found = _versions(name, doc, **options)
    if not found:
        return None
    texts = [p.inputs["text"] for p in found]
    if not meta:
        return texts
    return texts, [_meta(p) for p in found]


def _meta(version: P.Perturbed) -> Any:
    """CheckList's meta of a version: ``(original, new)``, e.g. ``("John Smith", "Paul Jones")`` (edits
    one space apart read as one); a version that changes several things has a list of such pairs."""
    pairs: list[list[str]] = []
    last_end = -2  # no edit yet
    for edit in version.change.get("edits", ()):
        if pairs and edit["start"] == last_end + 1:
            pairs[-1] = [pairs[-1][0] + " " + edit["from"], pairs[-1][1] + " " + edit["to"]]
        else:
            pairs.append([edit["from"], edit["to"]])
        last_end = edit["end"]
    distinct = list(dict.fromkeys(tuple(p) for p in pairs))
    return distinct[0] if len(distinct) == 1 else distinct


def _as_original(x: Any) -> Any:
    """An example as the output keeps it: spaCy docs (and tuples of them) as their text."""
    if isinstance(x, tuple | list):
        return type(x)(_as_original(v) for v in x)
    return x if isinstance(x, str | int | float | dict) or x is None else _text(x)


class Perturb:
    @staticmethod
    def perturb(
        data: list,
        perturb_fn: Any,
        keep_original: bool = True,
        nsamples: int | None = None,
        *args: Any,
        seed: int = 0,
        **kwargs: Any,
    ) -> MunchWithAdd:
        """``perturb_fn(example, *args, **kwargs)`` on every example: ``.data`` holds, per example it
        changes, ``[original, perturbed...]`` (without the original when ``keep_original`` is False);
        examples it leaves alone are left out. ``nsamples``: stop after that many, taken in a seeded random
        order. ``meta=True`` (passed on to ``perturb_fn``, which then returns ``(examples, metas)``) adds
        ``.meta``."""
        use_meta = kwargs.get("meta", False)
        order = list(range(len(data)))
        if nsamples:
            order = [int(i) for i in np.random.default_rng(seed).permutation(len(data))]
        out_data, out_meta = [], []
        for i in order:
            original = data[i]
            result = perturb_fn(original, *args, **kwargs)
            if not result or (use_meta and not result[0]):
                continue
            found, metas = result if use_meta else (result, None)
            found = list(found) if isinstance(found, list | np.ndarray) else [found]
            metas = (list(metas) if isinstance(metas, list) else [metas]) if use_meta else [None] * len(found)
            if all(not x for x in found):
                continue
            row = ([_as_original(original)] if keep_original else []) + found
            out_data.append(row)
            out_meta.append(([None] if keep_original else []) + metas)
            if nsamples and len(out_data) == nsamples:
                break
        ret = MunchWithAdd(data=out_data)
        if use_meta:
            ret.meta = out_meta
        return ret

    @staticmethod
    def add_typos(string: Any, typos: int = 1, seed: int | None = None) -> str | None:
        """``typos`` swaps of adjacent letters inside words."""
        return _one("typos", string, seed=seed, n_typos=typos)

    @staticmethod
    def contractions(sentence: Any, **kwargs: Any) -> list[str]:
        """The sentence with its contractions expanded, then with its phrases contracted (those that differ),
        in CheckList's order."""
        versions = _versions("contractions", sentence)
        return [p.inputs["text"] for p in sorted(versions, key=lambda p: p.change["direction"] != "expand")]

    @staticmethod
    def expand_contractions(sentence: Any, **kwargs: Any) -> str:
        return _one("expand_contractions", sentence) or _text(sentence)

    @staticmethod
    def contract(sentence: Any, **kwargs: Any) -> str:
        text = _text(sentence)
        expanded = Perturb.expand_contractions(text)
        return next((t for t in Perturb.contractions(text) if t != expanded), text)

    @staticmethod
    def change_names(
        doc: Any,
        meta: bool = False,
        n: int = 10,
        first_only: bool = False,
        last_only: bool = False,
        seed: int | None = None,
    ) -> Any:
        """``n`` versions with person names replaced (first names by the same gender's); ``first_only`` or
        ``last_only``: only first or only last names (None when the text has none)."""
        if first_only and last_only:
            raise InputError("change_names: first_only and last_only cannot both be set")
        part = "first" if first_only else "last" if last_only else "all"
        return _many("change_names", doc, meta, seed=seed, n=n, part=part)

    @staticmethod
    def change_location(doc: Any, meta: bool = False, seed: int | None = None, n: int = 10) -> Any:
        """``n`` versions with cities and countries replaced."""
        return _many("change_location", doc, meta, seed=seed, n=n)

    @staticmethod
    def change_number(doc: Any, meta: bool = False, seed: int | None = None, n: int = 10) -> Any:
        """``n`` versions with integers changed by up to 20%."""
        return _many("change_number", doc, meta, seed=seed, n=n)

    @staticmethod
    def add_negation(doc: Any) -> str | None:
        return _one("add_negation", doc)

    @staticmethod
    def remove_negation(doc: Any) -> str | None:
        return _one("remove_negation", doc)

    @staticmethod
    def punctuation(doc: Any) -> list[str]:
        """Without final punctuation, and ending in a period (those that differ)."""
        return [p.inputs["text"] for p in _versions("punctuation", doc)]

    @staticmethod
    def strip_punctuation(doc: Any) -> str:
        text = _text(doc)
        return next((t for t in Perturb.punctuation(text) if len(t) < len(text.rstrip())), text)
