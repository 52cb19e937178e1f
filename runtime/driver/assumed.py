"""The bools a jitted function assumes for conditions nothing can stage, between calls
(see `staging.speculation`).

A run that finds assumptions wrong flips every one it found wrong and the call is
staged and run again. (Sites after the first wrong one may lie on a path the run
should not have taken: their new values may be wrong again, which the next run
finds; for the common case, a comprehension's filter, each element's test is its
own site and one restaging fixes them all.) A condition whose value keeps changing
between calls would compile a program per call: after `MAX_FLIPS` restagings the
function stops assuming (None) and such a condition is refused, located, as it was
before assumptions.
"""
from __future__ import annotations

MAX_FLIPS = 8


class Assumptions:
    """One jitted function's assumed bools: `table` ({site: bool}, or None when it
    no longer assumes) and how many restagings they took."""

    def __init__(self, enabled=True):
        self.table: dict | None = {} if enabled else None
        self.flips = 0
        # sites whose value a run has given (flipped after a run found them wrong):
        # a staging that fails with them at that value fails on the path the data takes
        self.settled: set = set()

    def flip(self, sites):
        """After a run that found `sites` wrong."""
        self.settled.update(sites)
        self._flip(sites)

    def _flip(self, sites):
        if self.table is None:
            return
        self.flips += 1
        if self.flips > MAX_FLIPS:
            self.table = None
            return
        table = dict(self.table)
        for site in sites:
            table[site] = not table.get(site, True)
        self.table = table

    def disable(self):
        self.table = None

    def after_failed_staging(self, err) -> bool:
        """Staging failed after assuming bools (`err.assumed_sites`, in order): the last
        assumption may have chosen a path the data never takes (`if antipodal: lamb =
        pi` assumed True, then code that needs an array fails). The last site neither
        flipped yet nor given by a run is flipped. When every site has the value a run
        gave, the failure lies on the path the data takes: it is the refusal (False).
        When none is left otherwise (or after MAX_FLIPS) the function stops assuming,
        which stages it for the refusal as it was before assumptions. True: stage
        again."""
        sites = getattr(err, "assumed_sites", None)
        if not sites or self.table is None:
            return False
        if all(s in self.settled for s in sites):
            return False
        unflipped = [s for s in sites if self.table.get(s, True) and s not in self.settled]
        if unflipped:
            self._flip(unflipped[-1:])
        if not unflipped or self.table is None:
            self.disable()
        return True

    def reset(self):
        if self.table is not None:
            self.table, self.flips = {}, 0
        self.settled = set()

    def key(self):
        """For the disk cache's key: the assumptions a program was staged with."""
        return None if self.table is None else tuple(sorted(self.table.items()))
