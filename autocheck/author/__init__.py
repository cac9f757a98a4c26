"""CheckList's authoring toolkit: lexicons, placeholder functions (articles, inflections, WordNet
relations) and perturbations of existing data for INV/DIR tests."""

from .lexicons import Entry, load_lexicon, shipped_lexicons
from .perturb import PERTURBATIONS, Perturbed, perturb

__all__ = ["Entry", "load_lexicon", "shipped_lexicons", "PERTURBATIONS", "Perturbed", "perturb"]
