"""Rules for the helpers that generated adjoint code calls (``_sg.*``).

They make adjoint code differentiable again: ``sg.grad(sg.grad(f))`` reads
the generated code of ``sg.grad(f)`` like any user code. Same format and
scope as the other tables (``entry.Rule``).
"""
from .. import runtime as rt
from ..variables import stop_gradient
from .entry import Rule

# Read only for its shape / an index: no gradient flows into them.
_LIKE = frozenset({"like"})
_INDEX = frozenset({"index"})
_ITEM_ROWS = "_sg.unbroadcast_rows(_sg.take_rows(g, index), grad)"

TABLE = {
    rt.unbroadcast: Rule("grad, like", rank="like_second", nograd=_LIKE,
                         grad="_sg.broadcast_like(g, grad)"),
    rt.broadcast_like: Rule("grad, like", rank="like_second", nograd=_LIKE,
                            grad="_sg.unbroadcast(g, grad)"),
    rt.add: Rule("a, b", a="g", b="g"),
    # A Variable's adjoint added to a nested tape's sources where they hold it.
    rt.add_to_sources: Rule("grads, read, sources, grad", nograd={"read", "sources"}, grads="g",
                            grad="_sg.sources_grad(g, read, sources, grad)",
                            rows={"grad": "_sg.sources_grad(g, read, sources, grad, 1)"}),
    rt.sources_grad: Rule("grads, read, sources, like, lead=0",
                          nograd={"read", "sources", "like", "lead"},
                          grads="_sg.add_to_sources(_sg.zeros_like(grads), read, sources, g)",
                          rows={"grads": "_sg.add_to_sources(_sg.zeros_rows(grads, g), read, "
                                         "sources, g)"}),
    rt.add_at: Rule("base, index, grad", base="g", grad="_sg.unbroadcast(g[index], grad)",
                    rows={"grad": _ITEM_ROWS}, nograd=_INDEX),
    rt.add_at_zeros: Rule("like, index, grad", grad="_sg.unbroadcast(g[index], grad)",
                          rows={"grad": _ITEM_ROWS}, nograd=_LIKE | _INDEX),
    rt.gather_items: Rule("like, items", items="_sg.array_grad(g[:len(items)], items)",
                          rows={"items": "_sg.array_rows(g[:, :len(items)], items)"},
                          nograd=_LIKE),
    # (``container``: what the slot held before the write; the adjoint of ``base`` has
    # ``base``'s slot cleared in ``base``'s shape.)
    rt.zero_at: Rule("base, index, container=None", base="_sg.zero_at(g, index, base)",
                     nograd=_INDEX | {"container"}),
    # ``base[index] = value`` as a new array (passes/functional.py; runtime/stores.py).
    rt.with_item: Rule("base, index, value", rank="same", nograd=_INDEX,
                       base="_sg.store_base_grad(g, index)",
                       value="_sg.unbroadcast(_sg.store_value_grad(g, index), value)",
                       rows={"base": "_sg.store_base_rows(g, index)",
                             "value": "_sg.unbroadcast_rows(_sg.store_value_rows(g, index), value)"}),
    rt.stored_grad: Rule("grad, base", nograd={"base"}, grad="_sg.stored_grad(g, base)",
                         rows={"grad": "_sg.stored_grad(g, base)"}),
    rt.copy_slot: Rule("value", rank="identity", value="g"),
    # ``d.values()`` of a dict whose keys only the run knows, and its adjoint (linear in
    # ``g``: differentiated again, the code of second derivatives).
    # (Rows: the items' adjoints carry the rows; moved item by item, the same.)
    rt.dict_values: Rule("d", d="_sg.dict_values_grad(g, d)",
                         rows={"d": "_sg.dict_values_grad(g, d)"}),
    rt.dict_values_grad: Rule("g, d", nograd={"d"}, g="_sg.dict_values_grad_grad(g, d)",
                              rows={"g": "_sg.dict_values_grad_grad(g, d)"}),
    rt.dict_values_grad_grad: Rule("g, d", nograd={"d"}, g="_sg.dict_values_grad(g, d)",
                                   rows={"g": "_sg.dict_values_grad(g, d)"}),
    rt.copy_value: Rule("value, name, where", rank="identity", nograd={"name", "where"},
                        value="g"),
    rt.read_value: Rule("value", rank="identity", value="g"),
    rt.rolled_back: Rule("stack, length, value=None", rank="identity", nograd={"stack", "length"},
                         value="g"),
    rt.as_list: Rule("grad, like", grad="_sg.from_list(g, grad)", nograd=_LIKE),
    rt.distinct: Rule("grads", grads="g"),
    rt.writeable: Rule("value", value="g"),
    # A contribution zeroed is a constant 0 (runtime/strong.py); ``seed`` only says where.
    # (Rows: ``g`` with a leading axis of seed rows broadcasts against ``value``.)
    rt.strong_zero: Rule("value, seed", rank="same", nograd={"seed"},
                         value="_sg.strong_grad(g, value, seed)",
                         rows={"value": "_sg.strong_grad(g, value, seed)"}),
    rt.strong_grad: Rule("grad, value, seed", rank="same", nograd={"value", "seed"},
                         grad="_sg.strong_grad(g, value, seed)",
                         rows={"grad": "_sg.strong_grad(g, value, seed)"}),
    # A field of a dataclass built from differentiable values (passes/normalize/calls.py).
    rt.field: Rule("record, name", nograd={"name"}, record="_sg.field_grad(g, record, name)",
                   rows={"record": "_sg.field_grad(g, record, name, 1)"}),
    rt.field_grad: Rule("grad, record, name, lead=0", nograd={"record", "name"}, grad="g[name]",
                        rows={"grad": "g[name]"}),
}

# ``a + b`` and ``a * n`` where the operands are lists or tuples. Their row
# forms are the same: slicing a list of row adjoints.
# (The compiler takes a name for a list where some binding makes it one; an operand
# that is an array when it runs, the name bound to one elsewhere, gets the adjoint of
# arithmetic: ``_sg.concat_grad``, ``_sg.repeat_grad`` look.)
SEQUENCE_CONCAT = Rule("a, b", a="_sg.concat_grad(g, a, b, 0, 0)",
                       b="_sg.concat_grad(g, a, b, 1, 0)",
                       rows={"a": "_sg.concat_grad(g, a, b, 0, 1)",
                             "b": "_sg.concat_grad(g, a, b, 1, 1)"})
# (``[1.0, 2.0] * x`` of an array ``x`` is NumPy's product, not a repetition: then ``n``
# is differentiated, and its adjoint is the product's, the list read as an array.)
SEQUENCE_REPEAT = Rule("a, n", a="_sg.repeat_grad(g, a, n)",
                       n="_sg.unbroadcast(g * _sg.arrayed(a), n)",
                       rows={"n": "_sg.unbroadcast_rows(g * _sg.arrayed(a), n)"})
# ``list(seq)`` / ``tuple(seq)`` of a list or tuple: the same items (arrays iterated
# by rows are made lists first, passes/normalize/calls.sequence_call).
SEQUENCE_COPY = Rule("iterable", iterable="g", rows={"iterable": "g"})

NONDIFF = {rt.all_finite, rt.place, rt.attribute_or_missing, rt.check_object_slot, rt.global_value,
           rt.set_global, rt.repeats, rt.value_copy, rt.check_field, rt.dict_keys, rt.dict_sorted, rt.dict_counted, rt.dict_has, rt.check_unpack, rt.check_count, rt.check_zip, rt.field_index, rt.seed_like, rt.like, rt.zeros_like, rt.tangent_zeros, rt.check_scalar, rt.scalar_seed, rt.attempting, rt.attempted, rt.caught, rt.try_tail, rt.check_not_array,
           rt.check_not_view, rt.check_item_read, rt.check_arrays_added, stop_gradient, rt.enter_context, rt.exit_context,
           rt.check_item_update, rt.check_slice_length, rt.updated_in_place, rt.update,
           rt.check_not_0d, rt.check_apart, rt.view_places, rt.check_has_key, rt.check_array, rt.check_row_index,
           rt.check_unpacked, rt.check_positional, rt.taken, rt.snapshot, rt.put_back,
           rt.combination_positions, rt.permutation_positions, rt.product_positions,
           rt.islice_slice, rt.as_held}
