"""``np.add.at`` / ``np.subtract.at`` into an array of the function's own (issue 13: a
scatter-add, how graph code sums messages into nodes, was refused as a write srcgrad
cannot see). Compiled as the write it is, ``a[...] = add_at(a, index, v)``: repeated
indices accumulate. Checked against central differences to second order, in every
form and in forward mode; a scatter into an array another name shares is refused."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees

RNG = np.random.default_rng(5)
EDGES = np.array([[0, 1], [1, 2], [2, 0], [1, 0], [2, 2]])


def messages(x):
    """Each edge sends tanh of its source's feature to its target, summed at the target."""
    agg = np.zeros(3)
    np.add.at(agg, EDGES[:, 1], np.tanh(x[EDGES[:, 0]]))
    return np.sum(agg ** 2) + np.sum(agg * x[:3])


def histogram_2d(x):
    counts = np.ones((3, 2)) * x[0]
    np.add.at(counts, (np.array([0, 2, 2]), np.array([1, 0, 0])), x[1:4] ** 2)
    np.subtract.at(counts, [1, 1], np.outer(x[:2], x[2:4]))
    return np.sum(np.sin(counts))


def basic_index(x):
    out = x * 2.0
    np.add.at(out, slice(1, 3), x[:2])
    return np.sum(out ** 3)


def in_a_loop(x):
    out = np.zeros(2)
    for k in range(3):
        np.add.at(out, [k % 2, 0], x[k] * x[k + 1])
    return np.sum(np.exp(out))


CASES = [messages, histogram_2d, basic_index, in_a_loop]
X = RNG.normal(size=4) * 0.5


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_against_central_differences_to_second_order(f):
    check_grads(f, (X,), order=2)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_every_form_agrees(f):
    assert_forms_agree(f, (X,), nonzero=True)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_forward_mode(f):
    assert_forward_mode_agrees(f, (X,))


def test_the_value_found_by_hand():
    def f(x):
        out = np.zeros(3)
        np.add.at(out, [0, 1, 1, 2], x)
        return np.sum(out ** 2)

    x = np.array([0.3, 1.2, -0.7, 2.1])
    np.testing.assert_allclose(sg.grad(f)(x), [0.6, 1.0, 1.0, 4.2], rtol=1e-12)


def shared(x):
    out = np.zeros(3)
    view = out
    np.add.at(out, [0, 1], x[:2])
    return np.sum(view * x[:3])


def test_a_scatter_into_a_shared_array_is_refused():
    with pytest.raises(sg.CompileError, match="shared"):
        sg.grad(shared)(X)


SRC = np.array([0, 1, 2, 3, 4, 0, 2, 1])
DST = np.array([1, 2, 3, 4, 0, 2, 0, 1])


def degree_normalized(h, W):
    """Message passing whose degrees are counted into an array made anew each layer:
    the writes of a layer come after every read of the previous layer's array (it was
    refused as a write after the gradient computation read `deg`; hunt 3)."""
    for layer in range(2):
        msg = np.tanh(h[SRC] @ W)
        agg = np.zeros_like(h)
        for e in range(len(SRC)):
            agg[DST[e]] += msg[e]
        deg = np.zeros(h.shape[0])
        for e in range(len(SRC)):
            deg[DST[e]] += 1.0
        h = h + agg / np.maximum(deg, 1.0)[:, None]
    return np.sum(h ** 2)


def smoothed(V, W):
    """Umbrella smoothing, neighbour sums and counts accumulated item by item into arrays
    made anew each step (hunt 3's mesh Laplacian: refused)."""
    for it in range(2):
        acc = np.zeros_like(V)
        cnt = np.zeros(V.shape[0])
        for e in EDGES:
            a, b = e[0], e[1]
            acc[a] = acc[a] + np.tanh(V[b] @ W)
            cnt[a] = cnt[a] + 1
        V = V + 0.3 * (acc / np.maximum(cnt, 1.0)[:, None] - V)
    return np.sum(V ** 2)


def read_between(h, W):
    for layer in range(2):
        deg = np.ones(h.shape[0])
        h = h * deg[:, None]
        for e in range(len(SRC)):
            deg[DST[e]] += 1.0
        h = h + np.tanh(h @ W) / deg[:, None]
    return np.sum(h ** 2)


def read_in_the_writing_loop(h, W):
    for layer in range(2):
        deg = np.ones(h.shape[0])
        for e in range(len(SRC)):
            deg[DST[e]] += 1.0
            h = h + 0.1 * np.tanh(h @ W) * deg[:, None]
    return np.sum(h ** 2)


def test_an_array_made_anew_each_trip_and_written_after_its_reads():
    h, W = RNG.normal(size=(5, 3)) * 0.5, RNG.normal(size=(3, 3)) * 0.5
    for f in (degree_normalized, smoothed):
        check_grads(f, (h, W), wrt=(0, 1), order=1)
        assert_forms_agree(f, (h, W), nonzero=True)


@pytest.mark.parametrize("f", [read_between, read_in_the_writing_loop], ids=lambda f: f.__name__)
def test_a_write_after_a_read_of_the_same_trips_array_stays_refused(f):
    h, W = RNG.normal(size=(5, 3)) * 0.5, RNG.normal(size=(3, 3)) * 0.5
    with pytest.raises(sg.CompileError, match="after the gradient computation has read `deg`"):
        sg.grad(f)(h, W)
