"""Runtime operators that converted code calls as `ag__.<name>`: this package is that
namespace (the contract is written down in docs/architecture.md)."""
import sys as _sys

from npxla.runtime.operators.call import converted_call, set_attr, set_global  # noqa: F401
from npxla.runtime.operators.conditionals import (if_exp, reraise_refusal,  # noqa: F401
                                                   test_in_try)
from npxla.runtime.operators.if_statements import if_stmt, return_value  # noqa: F401
from npxla.runtime.operators.try_statements import staged_in_try, user_try  # noqa: F401
from npxla.runtime.operators.fstrings import format_string, percent_format  # noqa: F401
from npxla.runtime.operators.comprehensions import list_comp  # noqa: F401
from npxla.runtime.operators.bit_loops import bit_count, bit_count_applies  # noqa: F401
from npxla.runtime.operators.list_items import list_items_distinct  # noqa: F401
from npxla.runtime.operators.items import aug_set_item, get_item, index, set_item  # noqa: F401
from npxla.runtime.operators.logical import (and_, compare_chain, is_, is_not,  # noqa: F401
                                             not_, or_)
from npxla.runtime.operators.loops import (for_stmt, items_in_try, items_of,  # noqa: F401
                                           trip_bound, while_stmt)
from npxla.runtime.staging.variables import Undefined, UndefinedReturnValue  # noqa: F401

from npxla.runtime.operators import call as _call

_call.OPERATORS[:] = [_sys.modules[__name__]]      # functions converted_call converts
