"""CheckList's authoring toolkit: templates filled from lexicons and masked-LM suggestions
(``templates``, ``lexicons``, ``words``), and perturbations of existing cases for INV and DIR tests
(``perturb``, ``perturbed``)."""
