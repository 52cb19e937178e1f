"""State shared by the converters of one function."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field


@dataclass
class Context:
    filename: str
    function_name: str
    # the innermost class the function is defined in ("" for none): Python mangles
    # private names there (`converters.private_names`)
    class_name: str = ""
    _counter: itertools.count = field(default_factory=itertools.count)

    def new_name(self, hint: str) -> str:
        """A fresh, readable temporary name (`brk__3`)."""
        return f"{hint}__{next(self._counter)}"

    def new_names(self, *hints: str) -> tuple:
        """Fresh names sharing one number (`if_true__4`, `if_false__4`)."""
        number = next(self._counter)
        return tuple(f"{hint}__{number}" for hint in hints)
