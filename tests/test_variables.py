"""sg.Variable, sg.constant, sg.stop_gradient, sg.UnconnectedGradients, is_float_like."""
import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from srcgrad.variables import (
    UnconnectedGradients,
    Variable,
    constant,
    is_float_like,
    stop_gradient,
)


def held(v):
    return v.read_value()


# ----------------------------------------------------------------- construction

@pytest.mark.parametrize("value, dtype, shape", [
    (3.0, np.float64, ()),
    (3, np.float64, ()),
    ([1, 2, 3], np.float64, (3,)),
    ([[1.0, 2.0]], np.float64, (1, 2)),
    ((1, 2), np.float64, (2,)),
    (True, np.bool_, ()),
    (np.float32(1.5), np.float32, ()),
    (np.int64(4), np.int64, ()),
    (np.arange(3, dtype=np.int32), np.int32, (3,)),
    (np.ones((2, 2), dtype=np.float32), np.float32, (2, 2)),
    (1 + 2j, np.complex128, ()),
])
def test_construction_dtypes(value, dtype, shape):
    v = Variable(value)
    assert v.dtype == dtype
    assert v.shape == shape
    assert v.ndim == len(shape)
    assert v.size == int(np.prod(shape))


def test_explicit_dtype():
    assert Variable(3, dtype=np.float32).dtype == np.float32
    assert Variable([1.7, 2.2], dtype=np.int64).numpy().tolist() == [1, 2]
    assert Variable(np.ones(2), dtype="float32").dtype == np.float32


def test_from_variable_and_callable():
    a = Variable([1.0, 2.0])
    b = Variable(a)
    assert b is not a
    assert held(b) is not held(a)
    np.testing.assert_array_equal(b, a)
    c = Variable(lambda: np.zeros(3))
    assert c.shape == (3,)


def test_rejects_non_numeric():
    with pytest.raises(TypeError):
        Variable(["a", "b"])
    with pytest.raises(TypeError):
        Variable(object())
    with pytest.raises(TypeError):
        Variable(1.0, name=3)


def test_initial_value_is_copied():
    a = np.array([1.0, 2.0])
    v = Variable(a)
    a[0] = 100.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert not np.shares_memory(held(v), a)


def test_held_array_is_read_only():
    v = Variable([1.0, 2.0])
    arr = np.asarray(v)
    assert arr is held(v)
    assert not arr.flags.writeable
    with pytest.raises(ValueError):
        arr[0] = 5.0


def test_numpy_returns_independent_copy():
    v = Variable([1.0, 2.0])
    n = v.numpy()
    assert isinstance(n, np.ndarray)
    assert n.flags.writeable
    n[0] = 9.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.value(), [1.0, 2.0])


def test_numpy_of_scalar_is_numpy_scalar():
    v = Variable(3.0)
    assert type(v.numpy()) is np.float64
    assert v.numpy() == 3.0
    assert type(Variable(np.float32(2)).numpy()) is np.float32


# ----------------------------------------------------------------- properties

def test_trainable_and_name():
    v = Variable(1.0)
    assert v.trainable is True
    assert v.name == "Variable"
    w = Variable(1.0, trainable=False, name="w")
    assert w.trainable is False
    assert w.name == "w"
    with pytest.raises(AttributeError):
        w.trainable = True
    with pytest.raises(AttributeError):
        w.name = "z"
    with pytest.raises(AttributeError):
        w.shape = (2,)


def test_repr():
    v = Variable([1.0, 2.0], name="w")
    assert repr(v) == "<sg.Variable 'w' shape=(2,) dtype=float64, numpy=array([1., 2.])>"
    assert repr(Variable(3.0)) == "<sg.Variable 'Variable' shape=() dtype=float64, numpy=3.0>"
    f32 = Variable(np.float32(0.1), name="s")
    assert repr(f32) == "<sg.Variable 's' shape=() dtype=float32, numpy=0.1>"
    assert str(v) == repr(v)


def test_format():
    assert f"{Variable(3.14159):.2f}" == "3.14"
    v = Variable([1.0])
    assert f"{v}" == str(v)


# ----------------------------------------------------------------- arithmetic

OPS = [
    lambda a, b: a + b,
    lambda a, b: a - b,
    lambda a, b: a * b,
    lambda a, b: a / b,
    lambda a, b: a ** b,
    lambda a, b: a // b,
    lambda a, b: a % b,
    lambda a, b: np.maximum(a, b),
]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("other", [2.0, 3, np.array([1.5, 2.5]), np.float32(2.0)],
                         ids=["float", "int", "array", "np.float32"])
def test_arithmetic_both_sides(op, other):
    a = np.array([1.0, 4.0])
    v = Variable(a)
    for result, expected in [
        (op(v, other), op(a, other)),
        (op(other, v), op(other, a)),
        (op(v, Variable(other)), op(a, np.asarray(other, dtype=float))),
        (op(v, v), op(a, a)),
    ]:
        assert not isinstance(result, Variable)
        assert isinstance(result, np.ndarray)
        np.testing.assert_allclose(result, expected)


def test_unary_and_matmul():
    a = np.array([[1.0, -2.0], [3.0, 4.0]])
    v = Variable(a)
    for result, expected in [(-v, -a), (+v, a), (abs(v), abs(a)), (v @ v, a @ a),
                             (a @ v, a @ a), (v @ a, a @ a), (v.T, a.T)]:
        assert type(result) is np.ndarray
        np.testing.assert_array_equal(result, expected)


def test_scalar_variable_arithmetic_gives_numpy_scalar():
    v = Variable(3.0)
    r = v ** 2
    assert type(r) is np.float64
    assert r == 9.0
    assert type(2.0 * v) is np.float64


def test_comparisons_are_elementwise():
    v = Variable([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v == 2.0, [False, True, False])
    np.testing.assert_array_equal(v > 1.5, [False, True, True])
    np.testing.assert_array_equal(v != Variable([1.0, 0.0, 3.0]), [False, True, False])


def test_results_share_no_memory_with_variable():
    v = Variable([[1.0, 2.0], [3.0, 4.0]])
    for r in [v + 0, v.T, v.reshape(4), v.reshape((4,)), v.reshape(4, 1), v[0], v[:, 1],
              np.reshape(v, (4,)), np.transpose(v), np.atleast_2d(v), np.broadcast_to(v, (3, 2, 2)),
              np.squeeze(v), np.ravel(v), *list(v)]:
        assert isinstance(r, np.ndarray)
        assert r.flags.writeable
        assert not np.shares_memory(r, held(v))


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(max_dims=3, max_side=4),
                  elements=st.floats(-1e3, 1e3)),
       st.floats(-1e3, 1e3))
def test_arithmetic_matches_numpy(a, c):
    v = Variable(a)
    np.testing.assert_array_equal(v * c + v, a * c + a)
    np.testing.assert_array_equal(c - v, c - a)
    np.testing.assert_array_equal(np.tanh(v), np.tanh(a))
    np.testing.assert_array_equal(np.sum(v, axis=0), np.sum(a, axis=0))


# ----------------------------------------------------------------- ufuncs and functions

def test_ufuncs():
    a = np.array([-1.0, 0.5, 2.0])
    v = Variable(a)
    for result, expected in [(np.sin(v), np.sin(a)), (np.exp(v), np.exp(a)),
                             (np.maximum(v, 0), np.maximum(a, 0)),
                             (np.add.reduce(v), np.add.reduce(a)),
                             (np.multiply.outer(v, v), np.multiply.outer(a, a)),
                             (np.where(v > 0, v, 0.0), np.where(a > 0, a, 0.0))]:
        assert not isinstance(result, Variable)
        np.testing.assert_allclose(result, expected)
    assert type(np.sin(Variable(1.0))) is np.float64


def test_ufunc_with_plain_out_and_variable_where():
    v = Variable([1.0, 2.0])
    out = np.zeros(2)
    r = np.add(v, 1.0, out=out)
    assert r is out
    np.testing.assert_array_equal(out, [2.0, 3.0])
    mask = Variable(np.array([True, False]))
    out2 = np.zeros(2)
    np.add(v, 1.0, out=out2, where=mask)
    np.testing.assert_array_equal(out2, [2.0, 0.0])


def test_array_functions():
    a = np.array([1.0, 2.0, 3.0])
    v = Variable(a)
    assert np.sum(v) == 6.0
    assert np.dot(v, v) == 14.0
    np.testing.assert_array_equal(np.stack([v, v]), np.stack([a, a]))
    np.testing.assert_array_equal(np.concatenate([v, a, v]), np.concatenate([a, a, a]))
    np.testing.assert_array_equal(np.concatenate((v, v), axis=0), np.concatenate((a, a)))
    np.testing.assert_array_equal(np.einsum("i,i->", v, v), 14.0)
    np.testing.assert_allclose(np.linalg.norm(v), np.linalg.norm(a))
    np.testing.assert_array_equal(np.clip(v, 1.5, 2.5), np.clip(a, 1.5, 2.5))
    np.testing.assert_array_equal(np.mean(v), 2.0)
    m = Variable([[2.0, 0.0], [0.0, 4.0]])
    np.testing.assert_allclose(np.linalg.inv(m), [[0.5, 0.0], [0.0, 0.25]])
    parts = np.split(v, 3)
    assert isinstance(parts, list) and all(isinstance(p, np.ndarray) for p in parts)
    assert all(p.flags.writeable for p in parts)


def test_asarray_and_array():
    v = Variable([1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0])
    copied = np.array(v)
    assert copied.flags.writeable
    assert not np.shares_memory(copied, held(v))
    as32 = np.asarray(v, dtype=np.float32)
    assert as32.dtype == np.float32
    with pytest.raises(ValueError):
        np.array(v, dtype=np.float32, copy=False)
    assert np.array(v, copy=False) is held(v)
    # Lists of Variables convert too.
    np.testing.assert_array_equal(np.array([v, v]), [[1.0, 2.0], [1.0, 2.0]])


def test_convenience_methods():
    a = np.arange(6.0).reshape(2, 3)
    v = Variable(a)
    assert v.sum() == a.sum()
    np.testing.assert_array_equal(v.sum(axis=0), a.sum(axis=0))
    np.testing.assert_array_equal(v.mean(axis=1, keepdims=True), a.mean(axis=1, keepdims=True))
    assert v.max() == 5.0 and v.min() == 0.0
    np.testing.assert_array_equal(v.max(axis=1), [2.0, 5.0])
    np.testing.assert_array_equal(v.reshape(3, 2), a.reshape(3, 2))
    np.testing.assert_array_equal(v.reshape(-1), a.ravel())
    assert v.astype(np.float32).dtype == np.float32


# ----------------------------------------------------------------- Python protocols

def test_indexing_len_iter():
    a = np.arange(6.0).reshape(2, 3)
    v = Variable(a)
    assert len(v) == 2
    np.testing.assert_array_equal(v[1], a[1])
    assert v[1, 2] == 5.0 and type(v[1, 2]) is np.float64
    np.testing.assert_array_equal(v[:, ::2], a[:, ::2])
    np.testing.assert_array_equal(v[v > 2], a[a > 2])
    np.testing.assert_array_equal(v[[0, 1], [1, 2]], a[[0, 1], [1, 2]])
    idx = Variable(np.array([1, 0]))
    np.testing.assert_array_equal(v[idx], a[[1, 0]])
    rows = list(v)
    assert len(rows) == 2
    np.testing.assert_array_equal(rows[0], a[0])
    assert 4.0 in v and 10.0 not in v


def test_scalar_variable_protocols():
    s = Variable(2.5)
    with pytest.raises(TypeError):
        len(s)
    with pytest.raises(TypeError):
        iter(s)
    assert float(s) == 2.5 and type(float(s)) is float
    assert int(s) == 2
    assert complex(s) == 2.5
    assert bool(s) is True
    assert bool(Variable(0.0)) is False
    assert [10, 20, 30][Variable(np.int64(1))] == 20
    with pytest.raises(TypeError):
        [1, 2][s]


def test_bool_of_array_is_ambiguous():
    with pytest.raises(ValueError):
        bool(Variable([1.0, 2.0]))
    assert bool(Variable([1.0])) is True


def test_no_item_assignment():
    v = Variable([1.0, 2.0])
    with pytest.raises(TypeError):
        v[0] = 3.0


# ----------------------------------------------------------------- hashing / identity

def test_hash_by_identity():
    v = Variable([1.0, 2.0])
    w = Variable([1.0, 2.0])
    assert hash(v) != hash(w)
    d = {v: "v", w: "w"}
    assert d[v] == "v" and d[w] == "w"
    s = {v, w, v}
    assert len(s) == 2
    assert v in s
    assert Variable([1.0, 2.0]) not in s
    h = hash(v)
    v.assign([5.0, 6.0])
    assert hash(v) == h and d[v] == "v"


# ----------------------------------------------------------------- assignment

def test_assign_replaces_array():
    v = Variable([1.0, 2.0])
    old = held(v)
    assert v.assign([3.0, 4.0]) is v
    assert held(v) is not old
    np.testing.assert_array_equal(old, [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    assert not held(v).flags.writeable


def test_assign_copies_its_argument():
    v = Variable([1.0, 2.0])
    new = np.array([3.0, 4.0])
    v.assign(new)
    assert held(v) is not new
    new[0] = 100.0
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    assert new.flags.writeable  # the argument is left alone


def test_assign_add_and_sub():
    v = Variable([1.0, 2.0])
    arrays = [held(v)]
    assert v.assign_add([1.0, 1.0]) is v
    arrays.append(held(v))
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
    assert v.assign_sub(np.array([0.5, 0.5])) is v
    arrays.append(held(v))
    np.testing.assert_array_equal(v.numpy(), [1.5, 2.5])
    v.assign_add(v)
    arrays.append(held(v))
    np.testing.assert_array_equal(v.numpy(), [3.0, 5.0])
    assert len({id(a) for a in arrays}) == len(arrays)
    np.testing.assert_array_equal(arrays[0], [1.0, 2.0])
    np.testing.assert_array_equal(arrays[1], [2.0, 3.0])
    assert all(not a.flags.writeable for a in arrays)


def test_assign_add_broadcasts_delta_but_keeps_shape():
    v = Variable([1.0, 2.0])
    v.assign_add(1.0)
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
    v.assign_sub(Variable(0.5))
    np.testing.assert_array_equal(v.numpy(), [1.5, 2.5])
    with pytest.raises(ValueError):
        v.assign_add(np.ones((2, 2)))
    with pytest.raises(ValueError):
        v.assign_add(np.ones(3))
    np.testing.assert_array_equal(v.numpy(), [1.5, 2.5])


def test_scalar_assign():
    v = Variable(1.0)
    v.assign(5)
    assert v.numpy() == 5.0 and v.dtype == np.float64 and v.shape == ()
    v.assign_add(1)
    v.assign_sub(0.5)
    assert v.numpy() == 5.5
    assert isinstance(held(v), np.ndarray) and not held(v).flags.writeable


def test_assign_shape_mismatch():
    v = Variable([1.0, 2.0])
    for bad in [[1.0, 2.0, 3.0], 1.0, [[1.0, 2.0]], np.zeros((2, 1))]:
        with pytest.raises(ValueError, match="shape"):
            v.assign(bad)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_assign_keeps_dtype():
    v = Variable(np.array([1.0, 2.0], dtype=np.float32))
    v.assign(np.array([3.0, 4.0], dtype=np.float64))
    assert v.dtype == np.float32
    v.assign_add(0.5)
    assert v.dtype == np.float32
    np.testing.assert_array_equal(v.numpy(), np.array([3.5, 4.5], dtype=np.float32))
    i = Variable(np.array([1, 2]))
    i.assign_add(1)
    assert i.dtype == np.int64 or i.dtype.kind == "i"
    with pytest.raises(TypeError):
        i.assign([1.5, 2.5])
    with pytest.raises(TypeError):
        i.assign_add(0.5)


def test_in_place_operations_raise():
    v = Variable([1.0, 2.0])
    before = held(v)
    with pytest.raises(TypeError, match="assign"):
        v += 1.0
    with pytest.raises(TypeError, match="assign"):
        np.add(np.ones(2), 1.0, out=v)
    with pytest.raises(TypeError, match="assign"):
        np.add(np.ones(2), 1.0, v)
    with pytest.raises(TypeError, match="assign"):
        np.sin(np.ones(2), out=(v,))
    with pytest.raises(TypeError, match="assign"):
        np.add.at(v, [0], 1.0)
    with pytest.raises(TypeError, match="assign"):
        np.copyto(v, np.zeros(2))
    with pytest.raises(TypeError, match="assign"):
        np.put(v, [0], 5.0)
    with pytest.raises(TypeError, match="assign"):
        np.dot(np.eye(2), np.ones(2), out=v)
    assert held(v) is before
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


# ----------------------------------------------------------------- copy / pickle

def test_copy_deepcopy_pickle():
    v = Variable([1.0, 2.0], trainable=False, name="w")
    for c in [copy.copy(v), copy.deepcopy(v), pickle.loads(pickle.dumps(v))]:
        assert isinstance(c, Variable) and c is not v
        assert c.name == "w" and c.trainable is False and c.dtype == v.dtype
        np.testing.assert_array_equal(c.numpy(), v.numpy())
        assert not held(c).flags.writeable
        c.assign([9.0, 9.0])
        np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


# ----------------------------------------------------------------- constant

@pytest.mark.parametrize("value, dtype", [
    (1.0, np.float64), (1, np.float64), ([1, 2], np.float64), ([1.0, 2.0], np.float64),
    (True, np.bool_), (np.float32(1), np.float32), (np.arange(3), np.arange(3).dtype),
    (np.ones(2, dtype=np.float16), np.float16),
])
def test_constant_dtype_defaults(value, dtype):
    c = constant(value)
    assert type(c) is np.ndarray
    assert c.dtype == dtype


def test_constant():
    c = constant(3.0)
    assert c.shape == () and c == 3.0
    assert constant([1, 2], dtype=np.float32).dtype == np.float32
    a = np.array([1.0, 2.0])
    c = constant(a)
    assert c is not a and not np.shares_memory(c, a)
    v = Variable([1.0, 2.0])
    c = constant(v)
    assert type(c) is np.ndarray and c.flags.writeable
    assert not np.shares_memory(c, held(v))


# ----------------------------------------------------------------- UnconnectedGradients

def test_unconnected_gradients_parse():
    U = UnconnectedGradients
    assert U.parse(U.NONE) is U.NONE
    assert U.parse(U.ZERO) is U.ZERO
    assert U.parse("none") is U.NONE
    assert U.parse("zero") is U.ZERO
    assert U.parse("ZERO") is U.ZERO
    assert U.parse("None") is U.NONE
    assert U("zero") is U.ZERO
    assert U.NONE.value == "none" and U.ZERO.value == "zero"
    for bad in ["zeros", "", None, 0, U]:
        with pytest.raises(ValueError, match="'none'.*'zero'"):
            U.parse(bad)


def test_unconnected_gradients_members():
    assert [m.name for m in UnconnectedGradients] == ["NONE", "ZERO"]


# ----------------------------------------------------------------- stop_gradient

def test_stop_gradient():
    a = np.array([1.0, 2.0])
    assert stop_gradient(a) is a
    assert stop_gradient(3.0) == 3.0
    v = Variable([1.0, 2.0])
    r = stop_gradient(v)
    assert type(r) is np.ndarray and r.flags.writeable
    assert not np.shares_memory(r, held(v))
    np.testing.assert_array_equal(r, [1.0, 2.0])
    s = stop_gradient(Variable(2.0))
    assert type(s) is np.float64 and s == 2.0
    nested = stop_gradient({"a": [v, a], "b": (v,)})
    assert type(nested["a"][0]) is np.ndarray and nested["a"][1] is a
    assert type(nested["b"]) is tuple and type(nested["b"][0]) is np.ndarray


# ----------------------------------------------------------------- is_float_like

@pytest.mark.parametrize("value, expected", [
    (1.0, True), (np.float64(1.0), True), (np.float32(1.0), True), (np.float16(1.0), True),
    (np.array(1.0), True), (np.ones(3), True), (np.ones(3, dtype=np.float32), True),
    (np.zeros((0,)), True), (Variable(1.0), True), (Variable(1.0, trainable=False), True),
    (Variable(np.ones(2, dtype=np.float32)), True),
    (1, False), (True, False), (np.bool_(True), False), (np.int64(1), False),
    (np.arange(3), False), (np.array([True]), False), (Variable(np.arange(3)), False),
    (Variable(True), False), (1j, True), (np.ones(2, dtype=complex), True),
    (Variable(np.ones(2, dtype=complex)), True),
    ([1.0, 2.0], False), ((1.0,), False), (None, False), ("1.0", False),
    (np.array(["a"]), False), (np.array([1.0], dtype=object), False),
])
def test_is_float_like(value, expected):
    assert is_float_like(value) is expected


def test_ufuncs_on_variables_and_subclasses_return_fresh_arrays():
    class Scaled(Variable):
        pass

    for v in (Variable(np.array([1.0, -2.0])), Scaled(np.array([1.0, -2.0]))):
        for result in (v * 2.0, np.negative(v), np.positive(v), np.add(v, v), np.sin(v)):
            assert type(result) is np.ndarray and result.flags.writeable
            assert not np.shares_memory(result, v.read_value())
    assert type(np.sin(Variable(0.5))) is np.float64


def test_sg_grad_of_a_variable_says_what_to_do():
    import srcgrad as sg
    v = sg.Variable(np.ones(2))
    with pytest.raises(TypeError, match=r"is an sg.Variable: pass its value \(`v.numpy\(\)`\)"):
        sg.grad(lambda x: np.sum(x ** 2))(v)


def test_reads_are_noted_in_the_log_of_each_block_running_after_a_nested_one_ends():
    # (two logs equal as dicts, the outer block's and a nested one's: the nested one's
    # end removes its own, not the outer block's)
    from srcgrad.variables import _note_read, noting_reads

    v = Variable(np.ones(2))
    with noting_reads() as outer:
        with noting_reads() as inner:
            pass
        _note_read(v)
    assert outer == {id(v): v} and inner == {}
    with noting_reads() as outer:
        with noting_reads() as inner:
            _note_read(v)
        w = Variable(np.zeros(1))
        _note_read(w)
    assert set(outer) == {id(v), id(w)} and set(inner) == {id(v)}
