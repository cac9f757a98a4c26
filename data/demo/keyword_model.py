"""A stand-in for your own model in the README's first run: any function from a batch of texts to class
probabilities is a model (``--model data/demo/keyword_model.py:predict``). This one counts a few
opinion words, so autocheck's suites find its failures quickly (negation, for one)."""

POSITIVE = {"good", "great", "charming", "funny", "best", "love", "beautiful", "enjoyable", "fine", "moving"}
NEGATIVE = {"bad", "worst", "boring", "dull", "awful", "mess", "stupid", "fails", "flat", "tedious"}


def predict(texts):
    """P(negative), P(positive) for each text."""
    probs = []
    for text in texts:
        words = [w.strip(".,!?") for w in text.lower().split()]
        score = sum(w in POSITIVE for w in words) - sum(w in NEGATIVE for w in words)
        p = min(max(0.5 + 0.2 * score, 0.05), 0.95)
        probs.append([1 - p, p])
    return probs


predict.labels = ["negative", "positive"]
