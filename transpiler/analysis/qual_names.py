"""Qualified names: `a`, `a.b`, `a[0]`, `a[i].b` as hashable values.

Activity needs to say *what* a statement reads or modifies, and for NumPy code
that is often part of a value (`a[i] = v`, `self.x = y`). A `QN` names such a
place structurally, so two occurrences of `a[i]` compare equal, and `root`
gives the plain variable the place belongs to (the one liveness and reaching
definitions reason about).
"""

import gast

from npxla.transpiler.analysis import anno
from npxla.transpiler.analysis.anno import Static


class Literal:
    """A constant subscript key, kept apart from names: `a[0]` vs `a[zero]`."""

    __slots__ = ('value',)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return (isinstance(other, Literal) and type(self.value) is type(other.value)
                and self.value == other.value)

    def __hash__(self):
        return hash((Literal, type(self.value), self.value))

    def __repr__(self):
        return repr(self.value)


class QN:
    """`QN('a')`, `QN(QN('a'), attr='b')` or `QN(QN('a'), subscript=key)`.

    A subscript key is a `QN` (for `a[i]`) or a `Literal` (for `a[0]`).
    """

    __slots__ = ('parent', 'attr', 'subscript', '_name', '_key')

    def __init__(self, base, attr=None, subscript=None):
        if isinstance(base, str):
            if attr is not None or subscript is not None:
                raise ValueError('a plain name takes no attr or subscript')
            self.parent, self._name = None, base
            self._key = (base,)
        else:
            if (attr is None) == (subscript is None):
                raise ValueError('give exactly one of attr and subscript')
            self.parent, self._name = base, None
            self._key = (base, attr, subscript)
        self.attr = attr
        self.subscript = subscript

    @property
    def is_simple(self):
        return self.parent is None

    @property
    def is_composite(self):
        return self.parent is not None

    @property
    def name(self):
        """The identifier of a simple name."""
        if self._name is None:
            raise ValueError('{} is not a simple name'.format(self))
        return self._name

    @property
    def root(self):
        """The plain variable this place belongs to: `a` for `a.b[i]`."""
        qn = self
        while qn.parent is not None:
            qn = qn.parent
        return qn

    @property
    def support_set(self):
        """Plain variables whose value determines which place this is."""
        if self.is_simple:
            return frozenset((self,))
        support = self.parent.support_set
        if isinstance(self.subscript, QN):
            support |= self.subscript.support_set
        return support

    def __eq__(self, other):
        return isinstance(other, QN) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __str__(self):
        if self.is_simple:
            return self._name
        if self.attr is not None:
            return '{}.{}'.format(self.parent, self.attr)
        return '{}[{!r}]'.format(self.parent, self.subscript) if isinstance(
            self.subscript, Literal) else '{}[{}]'.format(self.parent, self.subscript)

    def __repr__(self):
        return 'QN({})'.format(self)


def _subscript_key(node):
    if isinstance(node, gast.Constant):
        return Literal(node.value)
    if (isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
            and isinstance(node.operand, gast.Constant)
            and isinstance(node.operand.value, (int, float))):
        return Literal(-node.operand.value)
    return from_node(node)


def from_node(node):
    """The QN of `node`, or None when it names no fixed place (`f().x`, `a[i:j]`)."""
    if isinstance(node, gast.Name):
        return QN(node.id)
    if isinstance(node, gast.Attribute):
        parent = from_node(node.value)
        return None if parent is None else QN(parent, attr=node.attr)
    if isinstance(node, gast.Subscript):
        parent = from_node(node.value)
        key = _subscript_key(node.slice)
        return None if parent is None or key is None else QN(parent, subscript=key)
    return None


def root_of(node):
    """The plain variable an (assignment) target belongs to: `a` for `a[i:j].b`.

    Unlike `from_node`, this sees through keys that name no fixed place, which is
    what activity needs: `a[i:j] = v` modifies `a` whatever the slice is.
    """
    while isinstance(node, (gast.Attribute, gast.Subscript, gast.Starred)):
        node = node.value
    return QN(node.id) if isinstance(node, gast.Name) else None


def resolve(tree):
    """Annotate every Name / Attribute / Subscript in `tree` with `Static.QN`."""
    for node in gast.walk(tree):
        if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)):
            qn = from_node(node)
            if qn is None:
                anno.delanno(node, Static.QN)
            else:
                anno.setanno(node, Static.QN, qn)
    return tree
