"""A generic worklist solver for dataflow problems over a `cfg.Graph`.

Reaching definitions (forward) and liveness (backward) differ only in
direction, meet and transfer function; the fixed-point iteration is shared here.
"""

import collections


class Dataflow:
    """Subclass and define `transfer` (and `meet` / `initial` / `boundary` if the
    defaults, set union starting from the empty set, do not fit).

    After `solve()`, `ins[node]` / `outs[node]` hold the state before / after
    each node in execution order, whatever the direction of the analysis.
    """

    forward = True

    def __init__(self, graph):
        self.graph = graph
        self.ins = {}
        self.outs = {}

    def initial(self):
        """State of a node not visited yet (the bottom of the lattice)."""
        return frozenset()

    def boundary(self):
        """State flowing into `entry` (forward) or out of `exit` (backward)."""
        return self.initial()

    def meet(self, states):
        return frozenset().union(*states)

    def transfer(self, node, state):
        raise NotImplementedError

    def solve(self):
        graph = self.graph
        if self.forward:
            start, before, after = graph.entry, self.ins, self.outs
            order, sources, sinks = graph.nodes, 'prev', 'next'
        else:
            start, before, after = graph.exit, self.outs, self.ins
            order, sources, sinks = graph.nodes[::-1], 'next', 'prev'
        for node in order:
            after[node] = self.initial()
        worklist = collections.deque(order)
        queued = set(order)
        while worklist:
            node = worklist.popleft()
            queued.discard(node)
            incoming = [after[n] for n in getattr(node, sources)]
            if node is start:
                incoming.append(self.boundary())
            before[node] = self.meet(incoming) if incoming else self.initial()
            result = self.transfer(node, before[node])
            if result != after[node]:
                after[node] = result
                for succ in getattr(node, sinks):
                    if succ not in queued:
                        queued.add(succ)
                        worklist.append(succ)
        return self

    def meet_outs(self, nodes):
        """Meet of the states after `nodes` (e.g. on the edges leaving them)."""
        return self._meet_of(self.outs, nodes)

    def meet_ins(self, nodes):
        """Meet of the states before `nodes`."""
        return self._meet_of(self.ins, nodes)

    def _meet_of(self, states, nodes):
        found = [states[n] for n in nodes]
        return self.meet(found) if found else self.initial()
