"""The tcp-pr paper: TCP-PR (Bohacek, Hespanha, Lee, Lim, Obraczka), Secs. V-VI, Figs. 4-16.

Paper key ``tcp-pr``: the setting and its assumptions in :mod:`.setting`,
the tables the fairness figures share in :mod:`.tables`, one module per
figure or group of figures.
"""
