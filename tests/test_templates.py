"""The AST helpers every pass builds code with (``srcgrad.templates``)."""
import inspect

import gast

from srcgrad.ir import templates as T
from srcgrad.passes import reverse


def test_walk_visits_the_nodes_gast_walk_visits_but_contexts():
    tree = gast.parse(inspect.getsource(reverse))
    want = [n for n in gast.walk(tree) if not isinstance(n, gast.expr_context)]
    assert {id(n) for n in T.walk(tree)} == {id(n) for n in want}
    assert sum(1 for _ in T.walk(tree)) == len(want)


def test_clone_copies_nodes_and_lists_and_shares_the_rest():
    tree = gast.parse("def f(a, b=2):\n    return [a[1:], b.T]\n").body[0]
    tree.sg_note = ("kept", "as is")
    copy = T.clone(tree)
    assert gast.unparse(copy) == gast.unparse(tree)
    originals = {id(n) for n in gast.walk(tree)}
    assert not any(id(n) in originals for n in gast.walk(copy))
    assert copy.sg_note is tree.sg_note
    copy.body[0].value.elts.pop()
    assert len(tree.body[0].value.elts) == 2


def test_substituted_nodes_take_the_context_of_their_place():
    target = gast.parse("a[i] = 0").body[0].targets[0]      # a Store subscript
    assert isinstance(target.ctx, gast.Store)
    read = T.stmt("y = v + 1", v=target)
    assert isinstance(read.value.left.ctx, gast.Load)
    assert isinstance(read.value.left.value.ctx, gast.Load)
    assert isinstance(target.ctx, gast.Store)                # the original is untouched
    load = gast.parse("b[j]").body[0].value
    write = T.stmt("t = 1", t=load)
    assert isinstance(write.targets[0].ctx, gast.Store)
    assert isinstance(write.targets[0].value.ctx, gast.Load)
    assert gast.unparse(write).strip() == "b[j] = 1"
