"""Elementwise primitives the core set lacks: complex parts, dtype-changing unary ops,
inverse hyperbolics and bit reinterpretation (signbit/copysign work on the sign bit so
-0.0 and NaN payload signs behave like C)."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import chlo, stablehlo as hlo

from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.elementwise import elementwise


def _real_dtype(dtype):
    return np.dtype(np.dtype(dtype).type(0).real.dtype)


def _to(dtype_fn, name, build):
    """Unary primitive whose result dtype is `dtype_fn(input dtype)`."""
    return Primitive(name, typing=lambda a, **_: (a[0], dtype_fn(a[1])),
                     lowering=lambda t, x, **_: build(x).result)


real = _to(_real_dtype, "real", hlo.RealOp)
imag = _to(_real_dtype, "imag", hlo.ImagOp)
abs_ = _to(_real_dtype, "abs", hlo.AbsOp)          # complex -> real magnitude
is_inf = _to(lambda d: np.dtype(np.bool_), "is_inf", chlo.IsInfOp)

complex_ = Primitive(
    "complex",
    typing=lambda re, im: (re[0], np.result_type(re[1], np.complex64)),
    lowering=lambda t, re, im: hlo.ComplexOp(re, im).result)

bitcast = Primitive(
    "bitcast_convert",
    typing=lambda a, *, dtype: (a[0], np.dtype(dtype)),
    lowering=lambda t, x, *, dtype: hlo.BitcastConvertOp(t, x).result)

asinh = elementwise("asinh", chlo.AsinhOp)
acosh = elementwise("acosh", chlo.AcoshOp)
atanh = elementwise("atanh", chlo.AtanhOp)
