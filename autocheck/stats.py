"""Statistics of failure rates, one home for the report, the comparison and the explanations: Wilson and
Newcombe intervals of proportions, Fisher's exact tests and the Benjamini–Hochberg correction. Written by
hand (a few lines each) so the core needs no scipy. A ground module: it imports nothing of autocheck.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(failures: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of the proportion failures / n (None when n is 0)."""
    if n <= 0:
        return None
    p = failures / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(a: tuple[int, int], b: tuple[int, int], z: float = Z95) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval (his method 10) of p_b − p_a from two (failures, n) counts, each
    proportion with its Wilson interval; None when either n is 0."""
    wa, wb = wilson(*a, z), wilson(*b, z)
    if wa is None or wb is None:
        return None
    pa, pb = a[0] / a[1], b[0] / b[1]
    d = pb - pa
    low = d - math.sqrt((pb - wb[0]) ** 2 + (wa[1] - pa) ** 2)
    high = d + math.sqrt((wb[1] - pb) ** 2 + (pa - wa[0]) ** 2)
    return max(-1.0, low), min(1.0, high)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _hypergeom(total: int, failures: int, drawn: int) -> tuple[int, int, list[float]]:
    """(lowest, highest, log-probabilities) of the failures among ``drawn`` of ``total`` cases."""
    low, high = max(0, drawn - (total - failures)), min(drawn, failures)
    norm = _log_comb(total, drawn)
    logs = [
        _log_comb(failures, x) + _log_comb(total - failures, drawn - x) - norm for x in range(low, high + 1)
    ]
    return low, high, logs


def fisher_greater(a: int, b: int, c: int, d: int) -> float:
    """One-sided Fisher's exact test of the table [[a, b], [c, d]] (rows: with / without a feature;
    columns: failed / passed): the probability of a or more failures with the feature, margins fixed."""
    low, _, logs = _hypergeom(a + b + c + d, a + c, a + b)
    return min(1.0, sum(math.exp(x) for x in logs[a - low :]))


def fisher_two_sided(a: int, b: int, c: int, d: int) -> float:
    """Two-sided Fisher's exact test: the probability of tables no more likely than the one seen."""
    low, _, logs = _hypergeom(a + b + c + d, a + c, a + b)
    seen = logs[a - low]
    return min(1.0, sum(math.exp(x) for x in logs if x <= seen + 1e-7))


def benjamini_hochberg(pvalues: list[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (q), in the order given."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    q, running = [1.0] * m, 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * m / rank)
        q[i] = min(1.0, running)
    return q
