"""State outside the compiled code: attributes of the user's objects, module variables.

``self.h = np.tanh(W @ self.h + x)`` on an object the code was handed (an argument,
a global, a model's layer): the attribute is mirrored by a local variable, which the
code differentiates, and stored into the object as well, so the object holds what
Python would (``passes/normalize/attributes.py``). The local starts from the
attribute's value where the object is first bound, or a stand-in that fails as a
read of a missing attribute fails. A module variable declared ``global`` is read and
written where the code runs (``passes/normalize/global_names.py``).
"""

__all__ = ["attribute_or_missing", "check_object_slot", "global_value", "set_global"]


class MissingAttribute:
    """The value of an attribute not set yet: any use raises the AttributeError the
    read of it would have raised."""

    __slots__ = ("_message",)

    def __init__(self, obj, name):
        object.__setattr__(self, "_message",
                           f"'{type(obj).__name__}' object has no attribute '{name}'")

    def _fail(self, *args, **kwargs):
        raise AttributeError(self._message)

    def __getattr__(self, name):
        if name == "_message":
            raise AttributeError(name)
        self._fail()

    __array__ = __bool__ = __float__ = __int__ = __index__ = __len__ = __iter__ = _fail
    __getitem__ = __call__ = __neg__ = __pos__ = __abs__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _fail
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = _fail
    __array_ufunc__ = __array_function__ = _fail

    def __repr__(self):
        return f"<missing: {self._message}>"


def attribute_or_missing(obj, name):
    """``obj.<name>``, or a stand-in that raises where it is used."""
    try:
        return getattr(obj, name)
    except AttributeError:
        return MissingAttribute(obj, name)


def check_object_slot(slots, slot, obj, spelled):
    """The compiled code keeps one local per attribute of each object it was compiled
    with; ``obj``, bound to a name the compiler took for the object of ``slot``, must be
    that slot's object in this call too, and no other slot's."""
    held = slots.get(slot)
    if held is None:
        for other, o in slots.items():
            if o is obj:
                raise TypeError(
                    f"`{spelled}` is an object the code also reaches as another (slot "
                    f"{other}): srcgrad compiled the code for distinct objects there; pass "
                    "distinct objects, or the same one in every call")
        slots[slot] = obj
    elif held is not obj:
        raise TypeError(
            f"`{spelled}` is another object than the code's earlier name for it: srcgrad "
            "compiled the code for one object there; pass the same object in every call, "
            "or distinct ones in every call")


def global_value(module_globals, name):
    """The module variable ``name`` now (NameError as Python's, if there is none)."""
    try:
        return module_globals[name]
    except KeyError:
        raise NameError(f"name '{name}' is not defined") from None


def set_global(module_globals, name, value):
    module_globals[name] = value
