"""The kit every paper's recipes are made of, one definition each:

:mod:`~reorderlab.papers.kit.recipe`
    a figure's four steps (:class:`FigureRecipe`, :class:`Derived`, :func:`recipe`);
:mod:`~reorderlab.papers.kit.runs`
    the runs a recipe asks for (:data:`Plan` of :class:`Sweep` s) and reads
    (:class:`Runs`), and the CSV tables it writes;
:mod:`~reorderlab.papers.kit.mode`
    full and quick fidelity (:class:`Mode`, :class:`Modes`);
:mod:`~reorderlab.papers.kit.claims`
    claims from checks (:func:`make_claim`) and their helpers;
:mod:`~reorderlab.papers.kit.summary`
    seed means of a sweep's table;
:mod:`~reorderlab.papers.kit.figure`
    line plots as data (:class:`LineFigure`);
:mod:`~reorderlab.papers.kit.sensitivity`
    sweeps over what a paper does not give, drawn and not judged.

A figure module imports what it uses from these modules; this package
imports none of them.
"""
