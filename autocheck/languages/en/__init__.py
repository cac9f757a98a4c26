"""English: its word rules (``words``: articles, inflections, WordNet relations, negations, polarity
items)."""
