"""Decorators that annotate corpus functions.

Each one only sets an attribute on the function it decorates and returns the
function unchanged: no registry is filled as a side effect of importing the
corpus. ``tests/corpus/__init__.py`` discovers the functions, the tests read
the attributes.
"""


def covers(*constructs):
    """Record the language constructs and primitives ``func`` exercises.

    The names must come from ``CONSTRUCTS`` (``tests/corpus/__init__.py``);
    ``test_every_construct_covered`` checks both directions.
    """

    def mark(func):
        func.constructs = frozenset(constructs)
        return func

    return mark


def no_second_order(reason):
    """Exclude ``func`` from the second-order gradient test, saying why.

    The test shows the exclusion as a skip carrying ``reason``; it never
    disappears silently.
    """

    def mark(func):
        func.no_second_order = reason
        return func

    return mark


def float32_safe(func):
    """Mark ``func`` as dtype-preserving: with float32 arrays in, it computes in float32.

    Such functions create no float64 arrays of their own (no ``np.zeros(n)``,
    no ``np.array`` of Python floats), so their gradients must come back as
    float32 too.
    """
    func.float32_safe = True
    return func
