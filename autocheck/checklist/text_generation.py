"""CheckList's ``checklist.text_generation``: its ``TextGenerator`` is the editor's masked LM (``Editor.tg``),
here autocheck's ``MaskedLM`` (loaded by ``Editor`` from ``model_name``). CheckList's own methods on it
(``unmask``, ``unmask_multiple``, ``replace_word``) are not mirrored: ``Editor.suggest`` and
``Editor.suggest_replace`` are the public way to ask it (docs/checklist-compat.md)."""

from __future__ import annotations

from ..expand.mlm import MaskedLM as TextGenerator

__all__ = ["TextGenerator"]
