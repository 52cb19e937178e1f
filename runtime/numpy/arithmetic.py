"""Arithmetic ufuncs (a starting set; the family grows in its own module)."""
from __future__ import annotations

import numpy as np

from ..primitives import elementwise as E
from .ufunc_core import register_ufunc

register_ufunc(np.add, lower=E.add)
register_ufunc(np.subtract, lower=E.subtract)
register_ufunc(np.multiply, lower=E.multiply)
register_ufunc(np.true_divide, lower=E.divide)
register_ufunc(np.negative, lower=E.negate)

for _ufunc, _dir in {np.less: "LT", np.less_equal: "LE", np.greater: "GT",
                     np.greater_equal: "GE", np.equal: "EQ", np.not_equal: "NE"}.items():
    register_ufunc(_ufunc, lower=lambda a, b, _d=_dir: E.compare(a, b, _d),
                   family="comparison")
