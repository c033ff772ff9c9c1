"""Packet spraying in data-center fabrics (Dixit et al., INFOCOM 2013): ECMP vs spraying per sender.

Paper key ``spraying``: the setting and its assumptions in :mod:`.setting`,
the recipe in :mod:`.fct`. Run by name only (``reorderlab reproduce
spraying``): it is not among the figures a plain ``reproduce`` runs.
"""
