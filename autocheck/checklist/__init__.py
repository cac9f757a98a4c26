"""CheckList's public API (``checklist`` 0.0.11) on autocheck's engine: change ``from checklist.`` to
``from autocheck.checklist.`` and a CheckList notebook runs.

- ``editor.Editor``: ``template`` (string, list, tuple and dict templates, label templates), ``suggest``,
  ``visual_suggest``, ``suggest_replace``, ``lexicons``, ``add_lexicon``, ``synonyms``, ``antonyms``,
  ``hypernyms``, ``hyponyms``, ``related_words`` (autocheck's templates, lexicons and masked LM);
- ``perturb.Perturb``: ``perturb`` and the perturbation functions (autocheck's perturbations);
- ``expect.Expect``, ``test_types.MFT/INV/DIR``, ``test_suite.TestSuite``, ``pred_wrapper.PredictorWrapper``.

Suites save as JSON, never pickle; ``TestSuite.visual_summary_table()`` and a test's ``visual_summary()`` are
autocheck's HTML display. docs/checklist-compat.md lists every CheckList name: supported, differs or missing.
(The importer of CheckList's released suite files is ``autocheck.sources.checklist``.)
"""
