"""Models for ``byte_identity.py``: the rule readers of ``tests/rule_models.py``, each with a blind spot so
that the runs it fences have failures as well as passes, and a question-answering reader (span answers)."""

from rule_models import NLIReader, QQPReader, SentimentReader, SquadReader

nli = NLIReader(["negation"])
qqp = QQPReader(["negation"])
sentiment = SentimentReader(["negation"])
squad = SquadReader(["negation"])
