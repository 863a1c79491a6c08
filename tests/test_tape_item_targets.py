"""A target that is an item of a list, tuple or dict the block built (``outs[1]``,
``losses["mse"]``) is a value computed inside the recorded region (SPEC, section 1):
its gradient flows. It was None, silently: the tape matched targets to the names
the block bound, never to the items of what they hold.

Each case in plain code and in ``@sg.function``, its expected values written out.

What sources a target reaches is known per name the block binds, and per item of a
list, tuple or dict display the block binds once and reads only by constant items:
such an item that depends on no watched value gets None, as TensorFlow gives
(``item_not_connected``). An item of a container built otherwise (appended in a
loop) that depends on no watched value, in a container whose other items do,
gets zeros, not None (``appended_item_not_connected``).
"""
import numpy as np
import pytest

import srcgrad as sg

Z = np.array([-0.6, 0.4])


def list_item(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        outs = [z * 2.0, z * 3.0]
    return tape.gradient(outs[1], z)


def dict_item(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        losses = {"mse": np.sum(z * z), "reg": 0.5 * np.sum(z)}
    return tape.gradient(losses["mse"], z)


def item_written_in_place(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        m = {}
        m["w"] = z * 2.0
    return tape.gradient(m["w"], z)


def dict_as_target(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        losses = {"a": np.sum(z * z), "b": np.sum(3.0 * z)}
    return tape.gradient(list(losses.values()), z)


def nested_item(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        pairs = [(z * 2.0, z * 5.0), (z, z * z)]
    return tape.gradient(pairs[1][1], z)


def items_and_a_name(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        y = np.sin(z)
        outs = (y * 2.0, z * 4.0)
    return tape.gradient([outs[0], outs[1], y], z)


def item_in_two_blocks(z):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(z)
        outs = [z * 2.0]
    with tape:
        w = outs[0] * 3.0
    return tape.gradient(w, z), tape.gradient(outs[0], z)


def jacobian_of_an_item(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        outs = {"y": z * np.array([2.0, 3.0])}
    return tape.jacobian(outs["y"], z)


def item_not_connected(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        outs = [z * 2.0, np.ones(2)]
    return tape.gradient(outs[1], z)


def dict_item_not_connected(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        losses = {"fit": np.sum(z * z), "prior": np.sum(Z * Z)}
        total = losses["fit"] + losses["prior"]
    return tape.gradient(losses["prior"], z), tape.gradient  # (the tape is spent after one)


def nested_item_not_connected(z):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(z)
        pairs = [(z * 2.0, np.ones(2)), (np.ones(2) * 3.0, z * z)]
    return tape.gradient(pairs[0][1], z), tape.gradient(pairs[1][0], z), \
        tape.gradient(pairs[1][1], z)


def appended_item_not_connected(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        outs = []
        for k in range(2):
            outs.append(z * 2.0 if k == 0 else np.ones(2))
    return tape.gradient(outs[1], z)


CASES = [
    (list_item, 3.0 * np.ones(2)),
    (dict_item, 2.0 * Z),
    (item_written_in_place, 2.0 * np.ones(2)),
    (dict_as_target, 2.0 * Z + 3.0),
    (nested_item, 2.0 * Z),
    (items_and_a_name, 3.0 * np.cos(Z) + 4.0),
    (item_in_two_blocks, (6.0 * np.ones(2), 2.0 * np.ones(2))),
    (jacobian_of_an_item, np.diag([2.0, 3.0])),
    (item_not_connected, None),
    (appended_item_not_connected, np.zeros(2)),
]


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("f, want", CASES, ids=[f.__name__ for f, _ in CASES])
def test_an_item_is_a_target(f, want, placement):
    run = f if placement == "plain" else sg.function(f)
    got = run(Z.copy())
    if want is None:
        assert got is None
    elif isinstance(want, tuple):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-13)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13)


def unasked_dict_whose_item_changed_shape(y, z):
    with sg.GradientTape() as tape:
        tape.watch(y)
        tape.watch(z)
        m = {"w": y, "s": z}
        n = m
        m["w"] = (z, z * 2.0)
        out = np.sum(z * z)
    return tape.gradient(out, [y, z])


def asked_item_of_an_alias(y, z):
    with sg.GradientTape() as tape:
        tape.watch(y)
        tape.watch(z)
        m = {"w": y}
        n = m
        m["w"] = z * 2.0
    return tape.gradient(n["w"], z)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_outputs_no_gradient_asks_for_add_nothing(placement):
    """Fuzzer 779:70 (crash): every name the block binds is seeded, those no gradient
    asks for with zeros of their structure at the block's end; ``n`` saw ``m['w']``
    become a tuple after ``n = m``, so its zeros met ``m``'s adjoint in another
    structure. Zeros add nothing, whatever their structure."""
    y, z = np.array([1.0, 2.0]), np.array([3.0, -4.0, 5.0, 0.5])
    run = (lambda f: f) if placement == "plain" else sg.function
    got = run(unasked_dict_whose_item_changed_shape)(y, z)
    assert got[0] is None
    np.testing.assert_allclose(got[1], 2.0 * z)
    np.testing.assert_allclose(run(asked_item_of_an_alias)(y, z), 2.0 * np.ones(4))


def item_read_after_the_block(z):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(z)
        outs = [z * 2.0]
    y = outs[0]
    with tape:
        w = y * 3.0
    return tape.gradient(w, z), tape.gradient(w, y), tape.gradient(w, [z, outs[0]])


def item_as_a_source(z):
    with sg.GradientTape() as tape:
        tape.watch(z)
        outs = {"h": np.sin(z)}
        w = outs["h"] * 3.0
    return tape.gradient(w, [outs["h"], z])


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_an_item_is_a_source(placement):
    """An item of a container a block built is a value computed inside the recorded
    region: a source too, and a later block reading it carries its adjoint back."""
    run = (lambda f: f) if placement == "plain" else sg.function
    by_z, by_y, both = run(item_read_after_the_block)(Z.copy())
    np.testing.assert_allclose(by_z, 6.0 * np.ones(2))
    np.testing.assert_allclose(by_y, 3.0 * np.ones(2))
    np.testing.assert_allclose(both[0], 6.0 * np.ones(2))
    np.testing.assert_allclose(both[1], 3.0 * np.ones(2))
    by_h, by_z = run(item_as_a_source)(Z.copy())
    np.testing.assert_allclose(by_h, 3.0 * np.ones(2))
    np.testing.assert_allclose(by_z, 3.0 * np.cos(Z))


def item_rebound_through_an_alias(x, y, z):  # fuzzer 35123:466, shrunk
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(z)
        a = (z, z, x)
        m = {"w": z, "b": a[-1] * -0.7}
        n = m
        n["b"] = a[-3]
        out = np.sum(a[0]) * 2.0
    return tape.gradient(out, [x, z])


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_zero_seeds_of_a_stale_structure_give_way(placement):
    """``m`` and ``n`` are one dict, seeded (with zeros) in its structure at the block's
    end, where ``b`` holds a (4,) array; at ``n = m`` ``n``'s adjoint, cleared by the
    write's reverse, has the (3, 2) it held before: the computed zeros win over the
    seed's (it crashed: an adjoint of shape (4,) for a value of shape (3, 2))."""
    run = (lambda f: f) if placement == "plain" else sg.function
    x, z = np.ones((3, 2)), np.array([3.0, -4.0, 5.0, 0.5])
    by_x, by_z = run(item_rebound_through_an_alias)(x, None, z)
    assert by_x is None or not np.any(by_x)
    np.testing.assert_allclose(by_z, 2.0 * np.ones(4))


def list_read_by_numpy_and_rebuilt(x, y):  # fuzzer 35132:661, shrunk
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        b = [a for a in y]
        g = [x, x, x]
        m = {"w": y, "b": y}
        n = m
        n["w"] = g
        out = np.mean(b) + np.mean(g)
    return tape.gradient(out, [x, y])


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_list_adjoint_meets_an_array_adjoint(placement):
    """``b``'s seed is a list (its zeros), ``np.mean(b)``'s adjoint an array: they add
    row by row into a list, which the comprehension's reverse pops from (it crashed:
    an array has no ``pop``)."""
    run = (lambda f: f) if placement == "plain" else sg.function
    x, y = np.ones((2, 3)), np.arange(6.0).reshape(3, 2)
    by_x, by_y = run(list_read_by_numpy_and_rebuilt)(x, y)
    np.testing.assert_allclose(by_x, np.full((2, 3), 1.0 / 6.0))
    np.testing.assert_allclose(by_y, np.full((3, 2), 1.0 / 6.0))


def stacked_item_through_an_alias(x, y):  # fuzzer 35151:845, shrunk
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        c = np.sum(y)
        m = np.stack([0.8, c, 1.5])
        p = {"w": m, "b": x}
        q = p
        q["w"] = np.stack([m, m])
        out = c + np.mean(m)
    return tape.gradient(out, [x, y])


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_stale_seed_does_not_broadcast(placement):
    """``p``'s zero seed has ``p["w"]`` as (2, 3), where the block's ``m`` it meets is (3,):
    a stale seed's shape broadcast the adjoint to (2, 3) (then a crash in stack's
    adjoint). Zeros add nothing, whatever their shape."""
    run = (lambda f: f) if placement == "plain" else sg.function
    by_x, by_y = run(stacked_item_through_an_alias)(np.ones(2), np.array([0.5, 0.25, 1.0]))
    assert by_x is None or not np.any(by_x)
    np.testing.assert_allclose(by_y, np.full(3, 4.0 / 3.0))


def number_item_replaced_through_an_alias(x, y, z):  # fuzzer 35191:319, shrunk
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        tape.watch(z)
        n = np.sum(x) * np.mean(y)
        p = {"w": y, "b": n}
        q = p
        q["b"] = z
        out = np.mean(q["b"])
    return tape.gradient(out, [x, y, z])


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_stale_seed_does_not_broadcast_a_number(placement):
    """``p``'s zero seed has ``p["b"]`` as (2, 3), where the block's ``n`` it meets is a
    number: the seed broadcast the number's adjoint (then a crash in mean's adjoint)."""
    run = (lambda f: f) if placement == "plain" else sg.function
    by_x, by_y, by_z = run(number_item_replaced_through_an_alias)(
        np.ones((2, 3)), np.array([0.5, -1.0]), np.full((2, 3), 2.0))
    assert by_x is None or not np.any(by_x)
    assert by_y is None or not np.any(by_y)
    np.testing.assert_allclose(by_z, np.full((2, 3), 1.0 / 6.0))


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_unconnected_items_of_displays_are_none(placement):
    run = (lambda f: f) if placement == "plain" else sg.function
    prior, _ = run(dict_item_not_connected)(Z.copy())
    assert prior is None
    a, b, c = run(nested_item_not_connected)(Z.copy())
    assert a is None and b is None
    np.testing.assert_allclose(c, 2.0 * Z, rtol=1e-13)


def _kept_before_rebinding(x):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = np.sin(x)
        first = h  # the same array under a second name
        kept = first
        h = h * 2.0  # h rebound: `first` and `kept` hold the value it had
        y = np.sum(h ** 2) + np.sum(kept * x)
    return tape.gradient(y, first), tape.gradient(y, kept), tape.gradient(y, h)


def test_a_source_kept_under_another_name_before_its_name_is_rebound():
    """``first = h; h = h * 2``: ``gradient(y, first)`` is the gradient with respect to the
    value ``h`` was bound to (it was None: watched where ``first`` was bound, which no
    target reaches by that name; hunt 3)."""
    x = np.array([0.3, -0.6, 0.9])
    want = 8 * np.sin(x) + x
    for run in (_kept_before_rebinding, sg.function(_kept_before_rebinding)):
        g_first, g_kept, g_h = run(x)
        np.testing.assert_allclose(g_first, want, rtol=1e-12)
        np.testing.assert_allclose(g_kept, want, rtol=1e-12)
        np.testing.assert_allclose(g_h, 4 * np.sin(x), rtol=1e-12)


def _filled_in_a_loop(x):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = x
        hs = []
        for i in range(3):
            h = np.tanh(h) + 0.1
            hs.append(h)
        y = np.sum(hs[-1] ** 2) + np.sum(hs[1])
    return tape, y, hs


@pytest.mark.parametrize("pick", [lambda hs: hs, lambda hs: hs[1], lambda hs: hs[-1]],
                         ids=["the list", "an item", "the last item, also bound to h"])
def test_a_source_held_by_a_container_the_block_fills_is_refused(pick):
    """The adjoint of a container the block appends to is reported where it is bound
    (``hs = []``), which is not its items': zeros or an IndexError before (hunt 3)."""
    tape, y, hs = _filled_in_a_loop(np.array([0.3, -0.6, 0.9]))
    with pytest.raises(sg.CompileError, match="`hs`, a container the GradientTape block fills"):
        tape.gradient(y, pick(hs))
    assert tape.gradient(y, [y])[0] == 1.0  # (targets and other sources still work)
