"""Runtime operators that converted code calls as `ag__.<name>`."""
from .call import converted_call  # noqa: F401
from .items import aug_set_item, index, set_item  # noqa: F401
