"""Nested tapes whose sources are one name bound to a list, tuple or dict of arrays.

The inner gradient's adjoint of such a source was summed with ``+``: two lists
concatenated (an inner gradient of four arrays for two sources, the outer gradient
silently zero) and two dicts raised. Each case is checked against the Hessian-vector
product written by hand, in plain code, in a plain function, in ``@sg.function``, and
as a second-order MAML step checked against central differences.
"""
import numpy as np
import pytest

import srcgrad as sg


def _cubes(x):
    return [3 * a ** 2 for a in x]


def _hvp_of_cubes(x, v):
    return [6 * a * b for a, b in zip(x, v)]


def nested_over_a_list(x, v):
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            loss = np.sum(x[0] ** 3) + np.sum(x[1] ** 3)
        g = inner.gradient(loss, x)
        gv = np.sum(g[0] * v[0]) + np.sum(g[1] * v[1])
    return g, outer.gradient(gv, x)


def nested_over_a_tuple(x, v):
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            a, b = x
            loss = np.sum(a ** 3) + np.sum(b ** 3)
        g = inner.gradient(loss, x)
        gv = sum(np.sum(gi * vi) for gi, vi in zip(g, v))
    return g, outer.gradient(gv, x)


def nested_over_a_dict(x, v):
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            loss = np.sum(x["a"] ** 3) + np.sum(x["b"] ** 3)
        g = inner.gradient(loss, x)
        gv = np.sum(g["a"] * v["a"]) + np.sum(g["b"] * v["b"])
    return g, outer.gradient(gv, x)


def _as_list(tree):
    return list(tree.values()) if isinstance(tree, dict) else list(tree)


def _pair():
    return [np.array([0.5, -1.0]), np.array([2.0])], [np.array([1.0, 2.0]), np.array([3.0])]


@pytest.mark.parametrize("build", [list, tuple, lambda items: dict(zip("ab", items))],
                         ids=["list", "tuple", "dict"])
@pytest.mark.parametrize("form", ["plain", "function"])
def test_the_inner_gradient_has_one_adjoint_per_source(build, form):
    x, v = _pair()
    x, v = build(x), build(v)
    f = {list: nested_over_a_list, tuple: nested_over_a_tuple}.get(build, nested_over_a_dict)
    g, hv = (sg.function(f) if form == "function" else f)(x, v)
    assert type(g) is type(x) and type(hv) is type(x)
    assert len(g) == len(x) and len(hv) == len(x)
    for got, want in zip(_as_list(g), _cubes(_as_list(x))):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    for got, want in zip(_as_list(hv), _hvp_of_cubes(_as_list(x), _as_list(v))):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_at_module_level(tmp_path):
    from tape_forms import assert_script_prints_ok

    assert_script_prints_ok(tmp_path / "nested_list.py", """
        import numpy as np
        import srcgrad as sg
        x = [np.array([0.5, -1.0]), np.array([2.0])]
        v = [np.array([1.0, 2.0]), np.array([3.0])]
        with sg.GradientTape() as outer:
            outer.watch(x)
            with sg.GradientTape() as inner:
                inner.watch(x)
                loss = np.sum(x[0] ** 3) + np.sum(x[1] ** 3)
            g = inner.gradient(loss, x)
            gv = np.sum(g[0] * v[0]) + np.sum(g[1] * v[1])
        hv = outer.gradient(gv, x)
        assert len(g) == 2 and len(hv) == 2
        assert np.allclose(hv[0], 6 * x[0] * v[0]) and np.allclose(hv[1], 6 * x[1] * v[1])
        print("ok")
    """)


def _mse(p, X, Y):
    return np.mean((np.tanh(X @ p[0]) @ p[1] - Y) ** 2)


def maml_query_loss(params, Xs, Ys, Xq, Yq):
    """One inner SGD step on the support set, the loss on the query set, and its
    gradient through the inner step (second order), parameters kept in one list."""
    with sg.GradientTape() as outer:
        outer.watch(params)
        with sg.GradientTape() as inner:
            inner.watch(params)
            support = _mse(params, Xs, Ys)
        grads = inner.gradient(support, params)
        fast = [params[k] - 0.1 * grads[k] for k in range(len(params))]
        query = _mse(fast, Xq, Yq)
    return query, outer.gradient(query, params)


def _maml_by_hand(W1, W2, Xs, Ys, Xq, Yq):
    h = np.tanh(Xs @ W1)
    d = 2 * (h @ W2 - Ys) / Ys.size
    g2 = h.T @ d
    g1 = Xs.T @ ((d @ W2.T) * (1 - h ** 2))
    return _mse([W1 - 0.1 * g1, W2 - 0.1 * g2], Xq, Yq)


@pytest.mark.parametrize("form", ["plain", "function"])
def test_maml_with_the_parameters_in_one_list(form):
    r = np.random.default_rng(12)
    Xs, Ys, Xq, Yq = (r.normal(size=s) for s in [(5, 3), (5, 1), (5, 3), (5, 1)])
    params = [r.normal(size=(3, 4)) * 0.5, r.normal(size=(4, 1)) * 0.5]
    f = sg.function(maml_query_loss) if form == "function" else maml_query_loss
    value, grads = f([p.copy() for p in params], Xs, Ys, Xq, Yq)
    assert value == pytest.approx(_maml_by_hand(*params, Xs, Ys, Xq, Yq), rel=1e-12)
    eps = 1e-6
    for k, p in enumerate(params):
        fd = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            step = np.zeros_like(p)
            step[idx] = eps
            up = [q + step if j == k else q for j, q in enumerate(params)]
            down = [q - step if j == k else q for j, q in enumerate(params)]
            fd[idx] = (_maml_by_hand(*up, Xs, Ys, Xq, Yq)
                       - _maml_by_hand(*down, Xs, Ys, Xq, Yq)) / (2 * eps)
        np.testing.assert_allclose(grads[k], fd, rtol=1e-6, atol=1e-9)


def sum_of_squares_by_index(params, form):
    if form == "generator":
        with sg.GradientTape() as tape:
            loss = sum(np.sum(params[k] ** 2) for k in range(len(params)))
    else:
        with sg.GradientTape() as tape:
            terms = [np.sum(params[k] ** 2) * (k + 1) for k in range(len(params))]
            loss = terms[0] + terms[1]
    return tape.gradient(loss, params)


@pytest.mark.parametrize("form", ["generator", "list"])
@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_comprehension_over_indices_of_watched_values(form, placement):
    """``[params[k] ... for k in range(len(params))]``: unrolled, as the loop is."""
    params = [sg.Variable(np.array([1.0, -2.0])), sg.Variable(np.array([3.0]))]
    f = sg.function(sum_of_squares_by_index) if placement == "function" \
        else sum_of_squares_by_index
    grads = f(params, form)
    scale = [1, 1] if form == "generator" else [1, 2]
    for g, p, c in zip(grads, params, scale):
        np.testing.assert_allclose(g, 2 * c * p.numpy(), rtol=1e-12)
