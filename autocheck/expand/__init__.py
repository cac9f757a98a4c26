"""Auto-CheckList's grammar expansion: reference PCFG, parsing, production differentiation, masked-LM fill."""
