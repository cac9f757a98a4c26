"""Tasks as data: what a task's inputs are, what its models answer, and how a model's outputs are read.

A task is declared in the header of its spec file (``requirements/<task>.json``, validated against
``requirements/schema.json``) next to its capabilities:

* ``inputs`` — the named text fields of one input: ``["text"]`` (the default), ``["premise", "hypothesis"]``,
  ``["question1", "question2"]``, ``["context", "question"]``;
* ``output`` — the name of a registered output kind (``outputs``): ``"label"`` (a classifier over
  ``labels``, the default) or ``"span"`` (extractive question answering: the answer is a span of the
  context, compared by SQuAD's normalised exact match), or a plug-in's;
* ``labels`` and ``label_aliases`` — the label set, and the other names models give those labels
  (``ENTAILMENT``, ``duplicate``, ``hateful``; compared case-insensitively);
* ``label_order`` — per number of classes, the label of each generic ``LABEL_i`` name;
* ``binary`` — how a two-class model is read in a task with a third label: CheckList reads a binary
  sentiment model three-way, P(positive) strictly inside (1/3, 2/3) being neutral. This is sentiment's
  rule, declared in its spec, not a global one;
* ``score`` — the default score of DIR tests, P(plus) − P(minus) (sentiment: positive − negative, CheckList's
  definition of "more positive");
* ``prompt`` — how a chat model is asked (``models.remote``), with ``{field}`` placeholders;
* ``language`` — the name of the task's language profile (``languages``): ``"en"`` (the default) or a
  plug-in's; templates and perturbations read and write its words;
* ``lexicon`` — the polarity lexicon that validates the task's expansions unless ``--lexicon`` names
  another: a lexicon's name or a TSV shipped with the project (``data/lexicons/hate_speech.tsv``).

A spec file that only adds capabilities to a known task (``requirements/sentiment_checklist.json``) may leave
the header out; it is then the shipped ``requirements/<task>.json``'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .resources import project_file
from .store import InputError

LABEL = "label"
ENGLISH = "en"
HEADER_KEYS = (
    "description", "inputs", "output", "labels", "label_aliases", "label_order", "binary", "score", "prompt",
    "lexicon", "language",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class BinaryReading:
    """A two-class model (``low``, ``high``) read with a third label: P(high) strictly inside ``band`` is
    ``neutral`` (CheckList's ``pred_and_conf`` for sentiment)."""

    low: str
    high: str
    neutral: str
    band: tuple[float, float] = (1 / 3, 2 / 3)


@dataclass(frozen=True, slots=True)
class Task:
    name: str
    inputs: tuple[str, ...] = ("text",)
    output: str = LABEL
    labels: tuple[str, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()  # lower-cased model class name -> label
    label_order: tuple[tuple[int, tuple[str, ...]], ...] = ()  # class count -> labels of LABEL_0..
    binary: BinaryReading | None = None
    score: tuple[str, str] | None = None  # (plus, minus): DIR's default score P(plus) - P(minus)
    prompt: str | None = None
    description: str = ""
    lexicon: str | None = None  # validates expansions unless --lexicon names another (hate speech's own)
    language: str = ENGLISH  # the language profile (``languages``) its words are read and written by

    # ----------------------------------------------------------------------------------------- JSON

    @classmethod
    def from_spec(cls, data: Mapping[str, Any]) -> Task:
        """From a validated spec header (see the module docs)."""
        binary = data.get("binary")
        score = data.get("score")
        aliases = {label.lower(): label for label in data.get("labels", ())}
        for label, names in data.get("label_aliases", {}).items():
            aliases.update((str(name).strip().lower(), label) for name in names)
        return cls(
            name=data["task"],
            inputs=tuple(data.get("inputs", ("text",))),
            output=data.get("output", LABEL),
            labels=tuple(data.get("labels", ())),
            aliases=tuple(sorted(aliases.items())),
            label_order=tuple(
                sorted((int(n), tuple(order)) for n, order in data.get("label_order", {}).items())
            ),
            binary=(
                BinaryReading(
                    binary["labels"][0],  # validated: two labels
                    binary["labels"][1],
                    binary["neutral"],
                    tuple(binary.get("band", (1 / 3, 2 / 3))),
                )
                if binary
                else None
            ),
            score=(score["plus"], score["minus"]) if score else None,
            prompt=data.get("prompt"),
            description=data.get("description", ""),
            lexicon=data.get("lexicon"),
            language=data.get("language", ENGLISH),
        )

    def polarity_lexicon(self, asked: str | None) -> str:
        """The lexicon that validates this task's expansions: ``asked`` (``--lexicon``) when given, else the
        task's own (a TSV shipped with the project, or a lexicon's name), else SentiWordNet."""
        if asked is not None:
            return asked
        if self.lexicon is None:
            return "sentiwordnet"
        shipped = project_file(self.lexicon)
        return str(shipped) if shipped.is_file() else self.lexicon

    def to_json(self) -> dict[str, Any]:
        """The header that ``from_spec`` reads back (recorded in suite manifests)."""
        out: dict[str, Any] = {"task": self.name, "inputs": list(self.inputs), "output": self.output}
        if self.labels:
            out["labels"] = list(self.labels)
            aliases: dict[str, list[str]] = {}
            for name, label in self.aliases:
                if name != label.lower():
                    aliases.setdefault(label, []).append(name)
            if aliases:
                out["label_aliases"] = aliases
        if self.label_order:
            out["label_order"] = {str(n): list(order) for n, order in self.label_order}
        if self.binary:
            b = self.binary
            out["binary"] = {"labels": [b.low, b.high], "neutral": b.neutral, "band": list(b.band)}
        if self.score:
            out["score"] = {"plus": self.score[0], "minus": self.score[1]}
        if self.prompt:
            out["prompt"] = self.prompt
        if self.description:
            out["description"] = self.description
        if self.lexicon:
            out["lexicon"] = self.lexicon
        if self.language != ENGLISH:  # English tasks' headers (and suites' manifests) as they always were
            out["language"] = self.language
        return out

    def check(self, where: str) -> None:
        """Consistency the schema cannot express; errors name ``where`` (the spec file). What the output
        kind needs is its own check (``outputs.kind.OutputKind.check_task``)."""
        labels = set(self.labels)
        for _, label in self.aliases:
            if label not in labels:
                raise InputError(
                    f"{where}: $.label_aliases: '{label}' is not one of the labels {self.labels}"
                )
        for n, order in self.label_order:
            if len(order) != n or not set(order) <= labels or len(set(order)) != n:
                raise InputError(f"{where}: $.label_order.{n}: needs {n} distinct labels of {self.labels}")
        if self.binary:
            b = self.binary
            if not {b.low, b.high, b.neutral} <= labels or len({b.low, b.high, b.neutral}) != 3:
                raise InputError(f"{where}: $.binary: labels and neutral must be three distinct task labels")
            if not 0 <= b.band[0] < b.band[1] <= 1:
                raise InputError(f"{where}: $.binary.band: needs 0 <= low < high <= 1, got {list(b.band)}")
        if self.score and not set(self.score) <= labels:
            raise InputError(f"{where}: $.score: plus and minus must be task labels")
        reserved = {"id", "capability", "kind", "expected", "test_type", "label", "seed_id"}
        reserved |= {"editable", "provenance"}
        clash = reserved & set(self.inputs)
        if clash:
            raise InputError(f"{where}: $.inputs: {sorted(clash)} is reserved for case records; rename it")
        if self.prompt:
            unknown = set(re.findall(r"\{(\w+)\}", self.prompt)) - set(self.inputs) - {"labels"}
            if unknown:
                raise InputError(
                    f"{where}: $.prompt: unknown field(s) {sorted(unknown)}; fields: {self.inputs}"
                )

    # ------------------------------------------------------------------------- reading model outputs

    def model_labels(self, names: Sequence[Any], where: str) -> tuple[str, ...]:
        """The task label of each of a model's class names (case-insensitive names and aliases, or generic
        ``LABEL_i`` by ``label_order``); anything else is an error naming the labels."""
        lowered = [str(n).strip().lower() for n in names]
        aliases = dict(self.aliases)
        mapped = tuple(aliases.get(n, "") for n in lowered)
        if all(mapped) and len(set(mapped)) == len(mapped):
            return mapped
        generic = [re.fullmatch(r"label_(\d+)", n) for n in lowered]
        orders = dict(self.label_order)
        if all(generic) and len(generic) in orders:
            indices = [int(m.group(1)) for m in generic if m]
            if sorted(indices) == list(range(len(indices))):
                return tuple(orders[len(indices)][i] for i in indices)
        known = ", ".join(sorted({n for n, _ in self.aliases}))
        counts = "/".join(str(n) for n in orders) or "no"
        raise InputError(
            f"{where}: cannot read labels {list(names)} as {self.name} labels {list(self.labels)}; "
            f"known names (any case): {known}; generic LABEL_i names for {counts} classes"
        )

    def read(self, model_labels: Sequence[str], probs: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """Probabilities over ``self.labels`` (in that order) and the predicted label of each row, from a
        model's probabilities over ``model_labels`` (task labels, as ``model_labels()`` maps them).

        A model over all the task's labels is reordered and predicts its argmax; a two-class model over the
        ``binary`` poles is read with the neutral band; a model over fewer labels gets zero columns for the
        labels it cannot predict (it never predicts them)."""
        model_labels = tuple(model_labels)
        if not set(model_labels) <= set(self.labels) or len(set(model_labels)) != len(model_labels):
            raise InputError(f"labels {model_labels} are not distinct {self.name} labels {self.labels}")
        b = self.binary
        if b and set(model_labels) == {b.low, b.high} and len(self.labels) > 2:
            p_high = probs[:, model_labels.index(b.high)]
            return self._banded(p_high), self._band_labels(p_high)
        out = np.zeros((len(probs), len(self.labels)))
        for j, label in enumerate(model_labels):
            out[:, self.labels.index(label)] = probs[:, j]
        return out, [self.labels[i] for i in out.argmax(axis=1)] if len(out) else []

    def _banded(self, p_high: np.ndarray) -> np.ndarray:
        """CheckList's reading of a binary model: p = P(high) <= lo gives (1 - p, 0, p) and p >= hi too;
        strictly in between, P(neutral) = 1 - |p - middle| / (hi - lo) (1 - 3|p - 0.5| for the default band:
        above 1/2 inside it) and the remainder goes to the nearer pole (low below the middle, high from it
        up), so the prediction is neutral exactly inside the band.

        This is CheckList's ``pred_and_conf`` except at p = 2/3 exactly, where CheckList's two strict
        comparisons leave an all-zero row whose argmax reads as *negative*; here it is positive."""
        assert self.binary is not None
        lo, hi = self.binary.band
        p = np.asarray(p_high, dtype=float)
        low, high = 1.0 - p, p.copy()
        neutral = np.zeros_like(p)
        inside = (p > lo) & (p < hi)
        # 1 - 3|p - 0.5| for the (1/3, 2/3) band: 1 in the band's middle, 1/2 at its edges
        share = 1.0 - np.abs(p - (lo + hi) / 2) / (hi - lo)
        neutral[inside] = share[inside]
        low[inside], high[inside] = 0.0, 0.0
        below = inside & (p < (lo + hi) / 2)
        low[below] = 1.0 - neutral[below]
        above = inside & ~below
        high[above] = 1.0 - neutral[above]
        out = np.zeros((len(p), len(self.labels)))
        out[:, self.labels.index(self.binary.low)] = low
        out[:, self.labels.index(self.binary.neutral)] = neutral
        out[:, self.labels.index(self.binary.high)] = high
        return out

    def _band_labels(self, p_high: np.ndarray) -> list[str]:
        """The band rule itself (not an argmax, so the edges do not depend on float ties)."""
        assert self.binary is not None
        lo, hi = self.binary.band
        b = self.binary
        return [
            b.low if x <= lo else b.high if x >= hi else b.neutral for x in np.asarray(p_high, dtype=float)
        ]
