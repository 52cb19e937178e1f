"""Runtime operators that converted code calls as `ag__.<name>`."""
from .call import converted_call  # noqa: F401
from .conditionals import if_exp, if_stmt  # noqa: F401
from .fstrings import format_string  # noqa: F401
from .items import aug_set_item, index, set_item  # noqa: F401
from .logical import and_, compare_chain, not_, or_  # noqa: F401
from .loops import for_stmt, while_stmt  # noqa: F401
from .variables import Undefined, UndefinedReturnValue, return_value  # noqa: F401
