"""Holding back: the decision, before any skill, that a request needs nothing done, or must not be served.

``requests`` generates the four kinds of request a domain's robot must not act on (and ordinary ones) from
the domain's own names and skills; ``classifier`` is the learned model that tells them apart; ``screen``
is the check every plan goes through (the planner node and the in-process benches alike).
"""
