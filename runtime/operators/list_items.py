"""The run-time half of `converters/list_items.py` (items of a local list given a
variable of their own for a loop)."""
from __future__ import annotations


def list_items_distinct(items, positions):
    """Whether `items` is a list holding an item at every position of `positions`, no
    two of them the same item (`counts[0]` and `counts[-1]` of a one-item list are):
    the loop may then update variables for them and write them back after."""
    if type(items) is not list:
        return False
    n = len(items)
    if not all(-n <= k < n for k in positions):
        return False
    return len({k % n for k in positions}) == len(positions)
