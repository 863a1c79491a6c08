"""Rule cases of ``_sg.arrayed`` (``srcgrad/rules/shapes.py``): a list or tuple operand of
a grad expression read as an array (see ``tests/rule_cases/__init__.py``)."""
from srcgrad.runtime import adjoints


def cases(t):
    # (Lists and tuples of values as ``np.asarray``'s: checked to first order only, as the
    # table's second-order check cannot trace ``np.shape`` of a list; end to end in
    # tests/test_array_like_operands.py.)
    C, R, F = t.C, t.R, t.F
    return [C(adjoints.arrayed, R(3)), C(adjoints.arrayed, R(2, 3), id="matrix"),
            C(adjoints.arrayed, F, id="float")]
