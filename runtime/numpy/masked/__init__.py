"""`numpy.ma` masked arrays that mask nothing: `np.ma.asarray(x)`, `np.ma.atleast_2d(x)`
and the arrays computed from them, as NumPy types them (`standins`: NumPy itself is asked
on stand-ins), the `np.ma` functions (`functions`), the routing of every other call that
touches one (`routes`) and the operations NumPy would mask elements in (`domains`).
See docs/semantics.md, "Masked arrays"."""
