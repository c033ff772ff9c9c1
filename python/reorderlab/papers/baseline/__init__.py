"""Baseline checks of the engine: an undisturbed chain and random loss vs PFTK.

Paper key ``baseline``: the setting and the models in :mod:`.setting`, one
module per figure (:mod:`.undisturbed`, :mod:`.random_loss`).
"""
