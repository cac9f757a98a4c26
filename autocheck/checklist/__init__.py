"""CheckList's public API (``checklist`` 0.0.11) on autocheck's engine: change ``from checklist.`` to
``from autocheck.checklist.`` and a CheckList notebook runs.

- ``editor.Editor``: ``template``, ``suggest``, ``suggest_replace``, ``lexicons``, ``add_lexicon``,
  ``synonyms``, ``antonyms``, ``related_words`` (autocheck's templates, lexicons and masked LM);
- ``perturb.Perturb``: ``perturb`` and the perturbation functions (autocheck's perturbations);
- ``expect.Expect``, ``test_types.MFT/INV/DIR``, ``test_suite.TestSuite``, ``pred_wrapper.PredictorWrapper``.

Suites save as JSON, never pickle; ``TestSuite.visual_summary_table()`` is autocheck's HTML display.
(The importer of CheckList's released suite files is ``autocheck.sources.checklist``.)
"""
