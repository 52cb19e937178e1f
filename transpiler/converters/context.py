"""State shared by the converters of one function."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field


@dataclass
class Context:
    filename: str
    function_name: str
    _counter: itertools.count = field(default_factory=itertools.count)

    def new_name(self, hint: str) -> str:
        """A fresh, readable temporary name (`__npxla_tmp_3`)."""
        return f"{hint}__{next(self._counter)}"
