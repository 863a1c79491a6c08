"""``GradientTape``: TensorFlow's tape semantics on NumPy values, by source transformation.

Entering a tape finds the block it records in the caller's source
(``blocks.locate``). The block runs once (``once.py``, ``compiler/recorded.py``):
its compiled forward code runs in place of its statements and keeps a
record, and ``gradient`` runs only the backward code from that record,
matching the adjoints it reports to the sources by identity, as TensorFlow
matches tensors.

Statements between ``tape.__enter__()`` and ``tape.__exit__(...)`` run once
the same way, and so do nested tapes' blocks (compiled into the outer
block's code); statements outside the compiler's language that no gradient
flows through run as written inside the compiled block
(``passes/as_written.py``). In an ``@sg.function`` the block is compiled
into the function's own code (``inplace.py``, ``_run_in_place``). A block
that cannot run this way (a ``return`` in it, a construct the compiler
refuses on a differentiated value) raises at entry, naming the reason and
the line: there is no second engine to fall back to.
"""
import functools
import math
import sys
import types
import warnings
from collections import ChainMap, OrderedDict

import gast
import numpy as np

from .. import runtime, trees, variables
from ..compiler import watched_reads
from ..compiler.cache import _cast, _kind, _Same, remember
from ..compiler.recorded import compile_recorded
from ..runtime.strong import all_finite
from ..errors import CompileError
from ..ir.names import written_into
from ..passes.ranks import size_classes
from ..passes.tape_blocks import PYTHON_NUMBERS, region_inputs, region_outputs
from ..variables import UnconnectedGradients, Variable, check_plain_data, is_float_like, \
    read_only
from . import blocks, kept, once

_COMPILED = OrderedDict()  # bounded: cache.remember


class _Cannot:
    """A block compile_recorded refused for these kinds of values: the refusal is raised
    again at each entry without compiling again."""

    text = ""  # (no code: what reads the cache's generated code skips it)

    def __init__(self, error, functions=()):
        self.error = error
        # The functions the block was refused with (its inputs', the globals it reads):
        # another function bound there is other code, compiled anew.
        self.functions = functions

    def holds(self, region, sample):
        return self.functions == _functions(region, sample)


def _functions(region, sample):
    """What identifies the functions, methods and classes among a block's inputs
    (``sample``) and the globals it reads."""
    if region.global_reads is None:
        region.global_reads = tuple(sorted(
            {n.id for s in region.statements for n in gast.walk(s)
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
            & set(region.globals)))
    values = list(sample) + [region.globals.get(n) for n in region.global_reads]
    return tuple(_identity(v) for v in values
                 if callable(v) and not isinstance(v, (np.ndarray, Variable)))


def _identity(value):
    if isinstance(value, types.MethodType):
        return id(value.__func__), id(value.__self__)
    return id(value)


_NOTHING_WATCHED = watched_reads.Watched({}, {})
_SCALAR_TARGETS = (float, np.float64)  # their seed: a 0-d float64 array of one

_NOT_PERSISTENT = "GradientTape.gradient can only be called once on non-persistent tapes."
# (frame id, block) -> the record of ``with GradientTape() as g, GradientTape() as d:``
# its first tape ran, which the others entered on that line take as their own.
_GROUPS = {}
_ONE_NUMBER = ("two watched variables hold the same Python number object (CPython shares "
               "equal constants, `K = 1.0; T = 1.0` are one object), and a tape matches "
               "sources by identity: srcgrad cannot tell which one a gradient is for. Make "
               "them distinct objects, e.g. `K = np.float64(1.0)` or arrays")


def _is_variable(value):
    return isinstance(value, Variable)


class _Record:
    """One recorded block: where it is, and the values it started from and ended with."""

    def __init__(self, where, inputs, values, modules=None):
        self.region = where
        self.inputs = inputs
        self.values = values
        self.modules = modules or {}  # modules bound in the caller's function: constants
        self.outputs = {}
        self.prewatched = []
        self.held = {}  # Variable -> its array when the block ran, if assigned since
        self.once = None  # (compiled code, its record), see once.py
        self.originals = {}  # id(copy in the record) -> the user's value it was copied from
        self.skipper = None
        self.raised = None  # (exception, variables bound, traceback) of a block that raised
        self.written_back = ()  # inputs updated in place (``total += v``), see run_compiled
        self.unkept = None  # (file, first line, last line) of the gradient that must read it
        self.watched_at_entry = _NOTHING_WATCHED  # what it watches (``_entry``)
        self.owner = None  # the tape whose entry ran the block
        # Where the other tapes of its with statement find it (``_GROUPS``), or None.
        self.group_key = None
        self.join_failed = False  # a later tape of the with statement refused to enter

    @property
    def shared(self):
        """Recorded for the tapes of one with statement: each reads it, none takes it."""
        return self.group_key is not None

    def carried_inputs(self, earlier):
        """Inputs holding a value an ``earlier`` record made, or one watched before the
        block: gradients flow on through them to the earlier blocks."""
        if not earlier and not self.prewatched:
            return []
        made = _ids_with_items(v for r in earlier for v in r.outputs.values())
        return [n for n in self.inputs
                if any(self.values[n] is v for v in self.prewatched)
                or id(self.values[n]) in made]

    def run_once(self, frame, carried, watch_variables, tape):
        """Run the block's compiled code in place of its statements (``once.refuse`` says
        why a block cannot, at entry)."""
        region = self.region
        if region.resume is not None and region.resume_stops and tape.persistent \
                and not region.resume_returns:
            raise once.refuse(region, f"the gradient of the persistent tape `{region.tape_name}` "
                              f"is taken inside its block (line {region.resume.lineno})",
                              "take it after the block ends, or make the tape non-persistent "
                              "(it then stops recording at the gradient, as TensorFlow's does)")
        if region.runs_once is None:
            region.runs_once = once.why_not(region) or True
        if region.runs_once is True and region.exit_stmt is not None \
                and not once.in_code(frame.f_code, region.exit_stmt):
            region.runs_once = ("its statements run as code of their own (an IPython cell), "
                                "which no trace function can skip")
        if region.runs_once is not True:
            raise once.refuse(region, region.runs_once)
        on_its_line = region.exit_stmt is not None and once.on_its_line(region)
        if on_its_line:
            once.check_on_its_line(region, frame)
        try:
            bound = self.run_compiled(carried, watch_variables, frame,
                                      tape.persistent or self.shared)
        except Exception as e:
            if self.raised is None or self.raised[0] is not e or region.resume is not None:
                raise
            # As a with statement ends on an exception: the tape bound, the block's
            # variables as the statements that ran left them; ``__exit__`` raises it.
            bound, self.watched = self.raised[1], []
        once.write_back(frame, bound)
        resume = None
        if region.resume is not None:
            resume = region.resume.lineno, functools.partial(tape._resumed, self)
        self.skipper = once.Skipper(frame, region.exit_stmt and region.exit_stmt.lineno,
                                    bound if on_its_line else None, resume,
                                    once.leading_try_lines(region))
        self.skipper.arm()

    def run_compiled(self, carried, watch_variables, frame=None, persistent=True):
        """Run the block's compiled forward code: the variables it binds (name -> value).
        Raises the compiler's refusal, or TypeError for a value it cannot take.
        ``frame``: where the block runs, for ``kept.quiet_until_gradient`` (a tape
        ``persistent`` always keeps copies)."""
        region = self.region
        # Variables the block only computes with run as their (frozen) arrays: no
        # Variable arithmetic in the compiled code; a trainable one is watched by name.
        plain = once.plain_variables(region, self.inputs, self.values)
        while True:
            # (In a block with nested tapes, a 0-d Variable's own array: their sources are
            # matched by identity to the arrays read, runtime.is_source.)
            sample = [(_array_of(self.values[n]) if not region.nested_tapes
                       else self.values[n].read_value()) if n in plain else self.values[n]
                      for n in self.inputs]
            as_arrays = tuple(n for n in plain if watch_variables and self.values[n].trainable)
            entry = self._entry(sample, carried, watch_variables, as_arrays)
            if plain and (isinstance(entry, _Cannot) or once.tells_variables_apart(entry)):
                region.variable_uses = set(region.variable_uses) | set(plain)  # not again
                plain = []
                continue
            break
        if isinstance(entry, _Cannot):
            raise entry.error
        unwrapped = {id(a): self.values[n] for n, a in zip(self.inputs, sample) if n in plain}
        with variables.noting_reads() as read_as_such:
            try:
                outs, watched, record = entry.forward(*sample)
            except Exception as e:
                self.raised = (e, *self._bound_when_raised(e, entry, unwrapped))
                raise
        # (Values stored in attributes, seeded by identity as the variables are: the
        # objects the block stored, before the record's copies are made.)
        mirrored = {n: record[n] for n in entry.mirrors if n in record}
        # (Those the compiled code read as sources are the block's own.)
        self.unfollowed = [v for v in read_as_such.values()
                           if all(v is not w for w in watched)]
        watched = [unwrapped.get(id(v), v) for v in watched]
        bound = {n: unwrapped.get(id(v), v) for n, v in zip(entry.outputs, outs)
                 if v is not runtime.UNBOUND}
        # ``total += v`` of the caller's array ran as a new array: written back into it
        # (after the record's copies are made, as that array may be in the record).
        updated = [(n, self.values[n]) for n in entry.updated_inputs
                   if isinstance(bound.get(n), np.ndarray) and bound[n] is not self.values[n]
                   and isinstance(self.values[n], np.ndarray)]
        if not updated and not persistent and frame is not None and entry.restores_only_own \
                and kept.quiet_until_gradient(region, frame, bound, self.values):
            # The next statement takes the gradient: nothing can write into the arrays
            # the record holds before the backward code reads them.
            after = region.next_stmt
            self.unkept = (frame.f_code.co_filename, after.lineno, after.end_lineno)
            self.originals = {}
        else:
            self.originals = kept.keep_as_computed(record, entry.copied, entry.private_reads,
                                                   entry.through_reads, sample)
        self.originals.update(unwrapped)
        for n, caller in updated:
            np.copyto(caller, bound[n], casting="same_kind")
            bound[n] = caller
        self.written_back = {n for n, _ in updated}  # (a source by that name: the new value)
        self.sample, self.as_arrays = sample, as_arrays
        for name, persistent in region.nested_tapes.items():
            # The compiled block never entered it: a tape whose gradients were taken inside.
            spent = GradientTape(persistent)
            spent._spent_in, spent._spent_as = region, name
            bound[name] = spent
        self.once = (entry, record)
        self.carried = carried
        self.outputs = {**bound, **mirrored} if mirrored else bound
        self.watched = watched
        return bound

    @staticmethod
    def _bound_when_raised(error, entry, unwrapped):
        """The block's variables as the statement that raised ``error`` left them
        (name -> value), read off the compiled block's frame in the traceback; the
        traceback from that frame on (srcgrad's own frames left out)."""
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code is not entry.forward.__code__:
            tb = tb.tb_next
        if tb is None:
            return {}, error.__traceback__
        local = tb.tb_frame.f_locals
        return {n: unwrapped.get(id(local[n]), local[n]) for n in entry.outputs
                if n in local and local[n] is not runtime.UNBOUND}, tb

    def _entry(self, sample, carried, watch_variables, as_arrays):
        """The block's compiled code for these values (cached), or a _Cannot."""
        region = self.region
        if region.watched_names is None:
            region.watched_names = once.watched_names(region)
        # Values watched from the block's start: reads of them from objects, containers,
        # globals are sources too (compiler/watched_reads.py).
        start, chains, later = once.watched_from_start(region)
        # (A name the block watches may be a global: ``tape.watch(W)`` in a function.)
        watched = self.watched_at_entry = watched_reads.at_entry(
            ChainMap(self.values, self.modules, region.globals), start, chains,
            later, self.prewatched) \
            if start or chains or later or self.prewatched else _NOTHING_WATCHED
        kinds = (tuple(self.inputs), tuple(_kind(v) for v in sample), size_classes(sample),
                 watch_variables, tuple(carried), as_arrays,
                 tuple((n, id(m)) for n, m in self.modules.items()),
                 watched.held_by(self.values) if watched else False, _aliases(sample))
        entry = self._compiled(kinds, sample, carried, watch_variables, as_arrays, True)
        if not _reads_as_compiled(entry, self.values, watched):
            # Other reads give a watched value now (another parameter watched): the code
            # compiled for those, which may read other places, checked the same way.
            now = (kinds, watched.pattern(entry.watch_reads, self.values),
                   tuple(n.pattern(self.values) for n in entry.nested_reads))
            entry = self._compiled(now, sample, carried, watch_variables, as_arrays, False)
            if not _reads_as_compiled(entry, self.values, watched):
                _COMPILED.pop((region.key, _Same(region.globals), now), None)
                entry = self._compiled(now, sample, carried, watch_variables, as_arrays, False)
        return entry

    def _compiled(self, kinds, sample, carried, watch_variables, as_arrays, usual):
        """The code compiled for ``kinds``, compiling it if it is not in the cache for the
        values watched at entry (``self.watched_at_entry``); ``usual``: remembered as the
        region's last (a training loop enters with the same kinds again)."""
        region = self.region
        last = region.last_entry
        if usual and last is not None and last[0] == kinds and (
                last[2].holds(region, sample) if isinstance(last[2], _Cannot)
                else last[2].guards.valid()):
            # The block entered again for the same kinds of values (a training loop): the
            # same key object, found without comparing it part by part; KeyError once the
            # bounded cache forgot it.
            try:
                if next(reversed(_COMPILED)) is not last[1]:  # (no hashing of the key)
                    _COMPILED.move_to_end(last[1])
                return last[2]
            except (KeyError, StopIteration):
                pass
        key = (region.key, _Same(region.globals), kinds)
        entry = _COMPILED.get(key)
        if entry is not None and (entry.holds(region, sample) if isinstance(entry, _Cannot)
                                  else entry.guards.valid()):
            _COMPILED.move_to_end(key)
            if usual:
                region.last_entry = (kinds, key, entry)
            return entry
        for name, value in zip(self.inputs, sample):
            check_plain_data(value, "the watched value" if name in region.watched_names
                             else f"`{name}`, which the recorded block reads,")
        try:
            entry = compile_recorded(region, self.inputs, sample, _outputs(region, self.inputs),
                                     watch_variables, _is_variable, tuple(carried),
                as_arrays=as_arrays, modules=self.modules, watched=self.watched_at_entry)
            entry.watch_variables = watch_variables  # for its row-mode twin
        except CompileError as e:
            entry = _Cannot(e, _functions(region, sample))
        remember(_COMPILED, key, entry)
        if usual:
            region.last_entry = (kinds, key, entry)
        return entry

    def rows_entry(self):
        """Row-mode backward code over this block's record, or None if its forward code
        would record differently (then the rows go one by one)."""
        return self._twin("rows")

    def _run_backward(self, entry, record, keep, live, args):
        """``entry``'s backward code run on ``record``: (what it reports, {id(copy):
        original}). ``keep``: the record stays as it is (what the code restores in
        place is copied); else the code reads the record as it is, and what it restores
        in place is taken out of it (the caller empties the record after)."""
        if keep:  # the backward code may run again: what it restores in place is copied
            run, originals = kept.pristine(record, entry.restored)
            take = run.get
        else:  # (left whole when nothing is restored: a run with strong zeros reads it)
            originals, take = {}, record.pop if entry.restored else record.get
        if self.held:  # Variables assigned since the block ran: their values then
            def take(name, default, take=take):
                value = take(name, default)
                if _is_variable(value) and value in self.held:
                    originals[id(self.held[value])] = value
                    return self.held[value]
                return value

        previous, runtime.HELD[0] = runtime.HELD[0], self.held
        try:
            return entry.backward(take, live, *args), originals
        finally:
            runtime.HELD[0] = previous

    def strong_entry(self):
        """The backward code with strong zeros over this block's record, or None if
        its forward code would record differently."""
        return self._twin("strong")

    def _twin(self, kind):
        """This block's code compiled again with ``kind`` ("rows" or "strong") on, kept
        only if its backward code can read this block's record (the same forward code,
        seeded at the same names); None otherwise. Compiled once per entry."""
        entry = self.once[0]
        if not hasattr(entry, kind):
            try:
                twin = compile_recorded(self.region, self.inputs, self.sample, entry.outputs,
                                        entry.watch_variables, _is_variable, tuple(self.carried),
                                        as_arrays=self.as_arrays, modules=self.modules,
                                        watched=self.watched_at_entry, **{kind: True})
            except CompileError:
                twin = None
            if twin is not None and (twin.forward_text != entry.forward_text
                                     or twin.seeded != entry.seeded):
                twin = None
            setattr(entry, kind, twin)
            if twin is not None:
                remember(_COMPILED, (id(entry), kind), twin)
        return getattr(entry, kind)

    def binds(self, value):
        """Does the block end with a name it is seeded at bound to ``value``, or to a
        list, tuple or dict holding it?"""
        entry = self.once[0]
        return any(self.outputs.get(n) is value for n in entry.seeded) \
            or self.item_path(entry, value) is not None

    def item_path(self, entry, value):
        """``(name, path)`` of ``value`` as an item of a container the block bound to
        ``name`` (``path``: the keys and indices down to it), or None."""
        for n in entry.seeded:
            held = self.outputs.get(n)
            if type(held) in (list, tuple, dict):
                path = _path_to(held, value, _ITEM_DEPTH)
                if path is not None:
                    return n, path
        return None

    def backward(self, seeded, flat_sources, earlier, keep, rows=None):
        """(source, adjoint, carried) triples from this block's record: ``source`` is
        the object the adjoint is for (None: counted by an earlier block), ``carried``
        the value an earlier block made or watched that it seeds there (or None).
        ``seeded``: (target, seed) pairs."""
        entry, record = self.once
        if rows is not None:
            entry = self.rows_entry()
        seeds, reached = {}, []
        for t, seed in seeded:
            name = next((n for n in entry.seeded if self.outputs.get(n) is t), None)
            if name is not None:
                seeds[name] = seed if name not in seeds else seeds[name] + seed
                reached.append(entry.reaches[name])
                continue
            # An item of a list, tuple or dict the block built (``outs[1]``,
            # ``losses["mse"]``): the container is seeded there, zeros elsewhere.
            found = self.item_path(entry, t)
            if found is not None:
                name, path = found
                if name not in seeds:
                    seeds[name] = _zero_seed(self.outputs.get(name), rows)
                seeds[name] = _seeded_at(seeds[name], path, seed)
                # What that item reaches, where the compiler could tell (a display).
                # (The container itself too: an item of it may be asked for as a source.)
                reached.append(entry.item_reaches.get((name, path), entry.reaches[name])
                               | {name})
        if not seeds:
            return []
        args = [seeds[n] if n in seeds else _zero_seed(self.outputs.get(n), rows)
                for n in entry.seeded]
        live = set().union(*reached)
        reported, originals = self._run_backward(entry, record, keep, live, args)
        if rows is None and (keep or not entry.restored) \
                and not all_finite([g for _, g in reported]):
            # Maybe a masked inf or NaN (``np.where(x > 0, np.log(x), 0)``): the
            # backward code again, with strong zeros (runtime/strong.py), on the same
            # record (as the first run found it: nothing was restored in place).
            strong = self.strong_entry()
            if strong is not None:
                reported, originals = self._run_backward(strong, record, True, live, args)
        if not keep:
            self.once = (self.once[0], {})
        pairs = reported if _PLAIN_OBJECTS.issuperset(type(obj) for obj, _ in reported) \
            else list(_pairs(reported))
        if originals or self.originals:
            # The user's objects the adjoints reported for copies are for.
            pairs = [(self.originals.get(id(o), o), g)
                     for o, g in ((originals.get(id(obj), obj), g) for obj, g in pairs)]
        # (Watched containers report item by item, ``_pairs``: their items count too.)
        carried = _ids_with_items(self.values[n] for n in self.carried) if self.carried else ()
        # Values an earlier block made report their adjoints where they were made (their
        # adjoint there includes this block's, passed on as its seed). (Ids of objects
        # the records hold: alive while this runs.)
        made_earlier = _ids_with_items(r.outputs.get(n) for r in earlier
                                       for n in r.once[0].seeded) if earlier else ()
        out = []
        by_name = {}
        for obj, adjoint in pairs:
            if type(obj) is str:
                by_name[obj] = adjoint
                continue
            out.append((None if id(obj) in made_earlier else obj, adjoint,
                        obj if id(obj) in carried else None))
        if not by_name:
            return out
        # A value the block computed, asked for as a source: its adjoint where the
        # block first bound it (that one carries what flows through its other names).
        seen = {id(obj) for obj, _ in pairs if type(obj) is not str}
        seen.update(id(v) for n, v in self.values.items() if n not in self.written_back)
        for source in flat_sources:
            if id(source) in seen:
                continue  # reported where the block watched it (``W = p["W"]; tape.watch(W)``)
            seen.add(id(source))  # (a source given twice gets its adjoint in both places)
            names = [n for n in by_name if self.outputs.get(n) is source]
            # (A value also held by a container the block fills is read through it too.)
            found = self.item_path(entry, source) if entry.filled else None
            if found is None and not names:
                found = self.item_path(entry, source)
            filled = [n for n in names + ([found[0]] if found else []) if n in entry.filled]
            if filled:
                region = self.region
                what = "" if filled[0] in names else "an item of "
                raise CompileError(
                    f"a source is {what}`{filled[0]}`, a container the GradientTape block "
                    "fills after binding it (an append or an item written): srcgrad "
                    "reports a container's adjoint where it is bound, "
                    "which is not its items'", region.origin(region).short(), None,
                    "take the gradient with respect to each item's value under a name of "
                    "its own in the block that no container holds, or build the container "
                    "at once from such names (a list or dict display)")
            if names:
                first = min(entry.order[n] for n in names)
                for n in names:
                    if entry.order[n] == first:
                        out.append((source, by_name[n], None))
                continue
            # An item of a container the block built (``y = outs[0]`` after it).
            if found is not None and found[0] in by_name:
                if entry.item_leaves.get(found, found[0]) not in live:
                    continue  # an item no target reaches (``params["b"]``): None
                adjoint = by_name[found[0]]
                for k in found[1]:
                    adjoint = adjoint[k]
                out.append((source, adjoint, None))
        return out


class GradientTape:
    """Records a block of code for differentiation, as ``tf.GradientTape`` does."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self._records = []
        self._current = None
        self._used = False
        self._watched = []
        self._watched_values = []
        self._failed = []  # (region, exception type) of blocks an exception ended
        self._cut = []  # blocks whose last statements ran as written, recording (once.cut)
        self._spent_in = None  # the block run once that this nested tape's block was in
        self._spent_as = None  # and the tape's name there

    # -- recording ----------------------------------------------------------------
    def __enter__(self):
        return self._enter(sys._getframe(1))

    def _enter(self, frame):
        """Start recording the ``with`` block ``frame`` is at (the user's, also when a
        ForwardAccumulator enters its tape)."""
        if self._current is not None:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        self._start_anew_if_spent()
        where = blocks.locate(frame)
        if where.inputs is None:
            once.cut(where)
            where.inputs = region_inputs(where)
            where.outputs = region_outputs(where)
        group = (id(frame), where.key) if where.with_stmt is not None \
            and len(where.with_stmt.items) > 1 else None
        if group in _GROUPS:
            return self._join(_GROUPS[group], where)
        local = frame.f_locals
        values = {n: local[n] for n in where.inputs if n in local}
        try:
            record = self._current = self._new_record(where, values)
            record.group_key, record.owner = group, self
            record.run_once(frame, record.carried_inputs(self._records),
                            self.watch_accessed_variables, self)
        except BaseException as e:
            self._current = None
            self._failed.append((where, type(e)))
            raise
        if group is not None:  # (the with statement enters the other tapes next, on this line)
            _GROUPS[group] = (record, self.watch_accessed_variables)
        for value in record.watched:
            self.watch(value)
        return self

    def _join(self, ran, where):
        """Enter a later tape of ``with GradientTape() as g, GradientTape() as d:``: the
        block ran once, compiled, when the first tape entered; this one records what it
        recorded (each reads the record, none takes it: both may ask for gradients)."""
        record, watch_variables = ran
        if watch_variables != self.watch_accessed_variables:
            record.join_failed = True  # (the first tape's ``__exit__`` lets this go on)
            raise once.refuse(where, "tapes of one with statement that watch accessed "
                              "Variables differently (watch_accessed_variables)",
                              "give each tape a with statement of its own")
        self._current = record
        for value in record.watched:
            self.watch(value)
        return self

    def _start_anew_if_spent(self):
        """A non-persistent tape entered again after its gradient was taken records
        anew, as TensorFlow's does (its ``_push_tape`` makes a new tape)."""
        if self._used and not self.persistent and self._spent_in is None:
            self.reset()

    def _run_in_place(self, block, values, frame=None):
        """Run a block of an ``@sg.function`` compiled in place (``inplace.py``): the
        values of the variables it binds, in the order of ``region.outputs``; None if
        the tape is recording already (its ``with`` statement then raises TensorFlow's
        error)."""
        region, names = block
        if self._current is not None:
            return None  # re-entered: the with statement raises TensorFlow's error
        self._start_anew_if_spent()
        record = None
        try:
            record = self._new_record(region, dict(zip(names, values)))
            bound = record.run_compiled(record.carried_inputs(self._records),
                                        self.watch_accessed_variables, frame, self.persistent)
        except BaseException as e:
            self._failed.append((region, type(e)))
            if record is not None and record.raised is not None and record.raised[0] is e:
                # The variables as the statements that ran left them, which the function's
                # code binds before the exception goes on (a handler around the block
                # reads them, as in plain code): ``inplace._in_place``.
                e.__srcgrad_bound__ = tuple(record.raised[1].get(n, runtime.UNBOUND)
                                            for n in region.outputs)
            raise
        for value in record.watched:
            self.watch(value)
        self._recorded(record)
        return tuple(bound.get(n, runtime.UNBOUND) for n in region.outputs)

    def _new_record(self, region, values):
        """The record of a block starting from ``values`` (the variables it reads, name ->
        value): modules are constants of its code, the tapes nested in it are entered by
        its code; any other tape it reads is refused."""
        if region.nested_tapes is None:
            region.nested_tapes = once.nested_tapes(region)
        modules, data = {}, {}
        for n, v in values.items():
            if type(v) is np.ndarray or _is_data(v):
                data[n] = v
            elif isinstance(v, types.ModuleType):
                modules[n] = v
            elif n != region.tape_name and n not in region.nested_tapes:
                raise once.refuse(region, f"it uses `{n}`, a {type(v).__name__} entered "
                                  "outside it", "take that tape's gradients outside this block, "
                                  "or nest its block inside this one")
        record = _Record(region, list(data), data, modules)
        # Values watched by an earlier block stay watched in this one.
        record.prewatched = list(self._watched_values)
        return record

    def _recorded(self, record):
        """``record``'s block ended normally: its gradient may be asked for."""
        self._records.append(record)
        variables._TAPES.add(self)

    def __exit__(self, exc_type, exc, tb):
        return self._exit(exc_type, exc)

    def _resumed(self, record):
        """The statements of ``record``'s block run as written from here (``once.cut``):
        a gradient taken there stops the recording; ``__enter__()`` finds it recording."""
        record.skipper = None
        if record.region.resume_stops:
            self._current = None
            self._recorded(record)
        else:
            self._cut.append(record.region)

    def _exit(self, exc_type, exc):
        record, self._current = self._current, None
        if record is None:
            return False
        if record.shared and record.owner is self:
            _GROUPS.pop(record.group_key, None)  # (a later item that was not our tape)
            if record.join_failed:  # (the block never started: its refusal goes on)
                record.skipper.disarm()
                return False
        if record.shared and record.owner is not self and exc_type in (once.SkipBlock, None):
            # A later tape of the with statement: the first one's ``__exit__`` (called
            # after this one's) checks the skip, and raises what the block raised.
            if record.raised is None:
                self._recorded(record)
            else:
                self._failed.append((record.region, type(record.raised[0])))
            return True
        skipper, record.skipper = record.skipper, None
        if skipper is None:  # resumed as written, still recording (``once.cut``)
            if exc_type is None:
                self._recorded(record)
            return False
        skipper.disarm()
        if not skipper.skipped or exc_type not in (once.SkipBlock, None):
            raise RuntimeError("srcgrad ran this GradientTape block and could not skip its "
                               "statements: they ran a second time") from exc
        if record.raised is not None:
            error, _, tb = record.raised
            record.raised = None
            self._failed.append((record.region, type(error)))
            # (Not as raised while skipping the block; from the compiled block's frame on.)
            raise error.with_traceback(tb) from None
        self._recorded(record)
        return True

    def watch(self, tensor):
        """Mark ``tensor`` (or a nested list/tuple/dict of them) as a source.

        The block's compiled code knows the watch from its source; at run time
        this only warns, as TensorFlow does, about values that cannot be watched.
        """
        if type(tensor) is np.ndarray and tensor.dtype.kind in "fc":  # the common case
            if all(v is not tensor for v in self._watched_values):
                self._watched_values.append(tensor)
            return
        if type(tensor) is Variable and tensor.dtype.kind in "fc":  # the next most common
            if all(v is not tensor for v in self._watched_values):
                self._watched_values.append(tensor)
            if all(v is not tensor for v in self._watched):
                self._watched.append(tensor)
            return
        for value in _flatten(tensor)[0]:
            check_plain_data(value, "the watched value")
            if not is_float_like(value):
                warnings.warn(f"The dtype of the watched tensor must be floating (e.g. float64) "
                              f"or complex, "
                              f"got {getattr(value, 'dtype', type(value).__name__)}", stacklevel=2)
                continue
            if all(v is not value for v in self._watched_values):
                self._watched_values.append(value)
            if _is_variable(value) and all(v is not value for v in self._watched):
                self._watched.append(value)

    def explain(self, target, sources):
        """Why ``gradient(target, sources)`` is None for each source that is (``why.py``).
        Does not use the tape up: a gradient may still be taken after it."""
        from .why import explain

        return explain(self, target, sources)

    def stop_recording(self):
        """A context manager: what runs inside it is not recorded (compiled as constants)."""
        return _NoRecording()

    def reset(self):
        """Forget everything recorded so far (the tape keeps recording if it is)."""
        variables._TAPES.discard(self)
        self._records = []
        self._used = False
        self._watched = []
        self._watched_values = []
        self._failed = []
        self._cut = []

    def watched_variables(self):
        """The Variables watched explicitly or read by the recorded blocks.

        Reads inside called functions and methods are found by compiling the
        blocks (as the first ``gradient`` would).
        """
        seen = list(self._watched)
        if self.watch_accessed_variables:
            for record in self._records:
                found = [v for v in record.values.values() if _is_variable(v) and v.trainable]
                found += record.once[0].variables
                seen += [v for v in found if all(v is not s for s in seen)]
        return tuple(seen)

    # -- differentiation ----------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of target [* output_gradients]) / d(sources), shaped like ``sources``."""
        unconnected = UnconnectedGradients.parse(unconnected_gradients)
        self._start_differentiating(sys._getframe(1))
        flat_sources, rebuild = _flatten(sources)
        flat_targets = _flatten(target)[0]
        # The user's seeds as read-only views: a gradient that is a seed itself (``y = x +
        # 0.0``) is then copied when returned, not handed back as the user's array.
        seeds = [_read_only(s) for s in _flatten(output_gradients)[0]] \
            if output_gradients is not None else [None] * len(flat_targets)
        if len(seeds) != len(flat_targets):
            raise ValueError("output_gradients must have the structure of target")
        seeds = [s if s is None else _seed_shaped(s, t) for s, t in zip(seeds, flat_targets)]
        self._check_not_lost(flat_targets)
        grads = self._vjp(flat_targets, seeds, flat_sources)
        self._check_followed(grads, flat_sources)
        return rebuild(list(runtime.distinct([_finish(g, s, unconnected)
                                              for g, s in zip(grads, flat_sources)])))

    def _check_followed(self, grads, sources):
        """A Variable the block computed with through code srcgrad did not follow as a
        read of it (``vars(m)["w"]``, ``next(iter(ws))``, a container's ``__iter__``, one
        made in the block): an error, where its gradient would be None or miss what
        flowed through those reads."""
        if not any(getattr(r, "unfollowed", None) for r in self._records):
            return  # (the usual case: nothing below can raise)

        def watched(v):
            return v.trainable and self.watch_accessed_variables \
                or any(v is w for w in self._watched_values)

        unseen = next((r for r in self._records
                       if any(watched(v) for v in getattr(r, "unfollowed", ()))), None)
        for g, s in zip(grads, sources):
            if not isinstance(s, Variable):
                if g is None and unseen is not None:
                    # (A value the block computed from such a Variable, ``x2 = x * 2``:
                    # it is connected through the Variable srcgrad did not follow.)
                    raise CompileError(
                        "a source's gradient is None, and the GradientTape block at "
                        f"{unseen.region.origin(unseen.region).short()} computed with a "
                        "Variable where srcgrad could not tell it would be one (made in the "
                        "block, or read through vars(), dict.get, next(iter()), a container's "
                        "own __iter__): the source may depend on it", None, None,
                        "make Variables before the block, and read them where srcgrad sees "
                        "them: an attribute (obj.w), a constant item (params['w'], ws[0]), a "
                        "for loop over a list or dict")
                continue
            record = next((r for r in self._records
                           if any(s is v for v in getattr(r, "unfollowed", ()))), None)
            if watched(s) and record is not None:
                raise CompileError(
                    f"the Variable {s.name!r} (shape {s.shape}) was computed with in the "
                    "GradientTape block at "
                    f"{record.region.origin(record.region).short()} where srcgrad could not "
                    "tell it would be a Variable (read through vars(), dict.get, next(iter()), "
                    "list(d.values()), a container's own __iter__ or __getitem__, or made in "
                    "the block): its gradient would be None, or miss what those reads "
                    "contribute", None,
                    None, "read it where srcgrad sees it: an attribute (obj.w), a constant "
                    "item (params['w'], ws[0]), a for loop over a list or dict; make "
                    "Variables before the block")

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE):
        """d target / d sources: for each source, shape ``target.shape + source.shape``.

        One run of the block's adjoint code, seeded with every row of the
        identity at once (each adjoint carries a leading axis of rows).
        """
        unconnected = UnconnectedGradients.parse(unconnected_gradients)
        self._start_differentiating(sys._getframe(1))
        _check_one_array(target, "jacobian")
        flat_sources, rebuild = _flatten(sources)
        shape = np.shape(target)
        size = math.prod(shape)
        seed = np.eye(size).reshape((size,) + shape)
        self._check_not_lost([target])
        grads = self._vjp([target], [seed], flat_sources, rows=True)
        return rebuild(list(runtime.distinct([_rows_finish(g, s, (size,), shape, unconnected)
                                              for g, s in zip(grads, flat_sources)])))

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE):
        """Per-example Jacobians: shape ``(batch,) + target.shape[1:] + source.shape[1:]``.

        Example b of ``target`` must depend only on example b of ``source``
        (as in TensorFlow): then one run seeded with a unit vector in every
        example at once gives row m of all the examples' Jacobians, so the
        backward pass runs over ``target.shape[1:]`` rows, not ``target.size``.
        """
        unconnected = UnconnectedGradients.parse(unconnected_gradients)
        _check_one_array(target, "batch_jacobian")
        t_shape, s_shape = np.shape(target), np.shape(source)
        if len(t_shape) == 0 or len(s_shape) == 0 or s_shape[0] != t_shape[0]:
            raise ValueError(f"batch_jacobian needs target and source with the same first "
                             f"dimension, got shapes {t_shape} and {s_shape}")
        self._start_differentiating(sys._getframe(1))
        batch, rest = t_shape[0], t_shape[1:]
        size = int(np.prod(rest, dtype=int))
        eye = np.eye(size).reshape((size, 1) + rest)
        seed = np.ascontiguousarray(np.broadcast_to(eye, (size,) + t_shape))
        self._check_not_lost([target])
        (g,) = self._vjp([target], [seed], [source], rows=True)
        g = _rows_finish(g, source, (size,), (size,), unconnected)
        if g is None:
            return None
        moved = np.swapaxes(g, 0, 1)  # (batch, row, ...) from (row, batch, ...)
        return moved.reshape((batch,) + rest + s_shape[1:])

    def _check_not_lost(self, flat_targets):
        """A target computed in a block an exception ended, or in its statements after
        ``tape.__enter__()`` (run as written, ``once.cut``): an error, not a None gradient."""
        if not self._failed and not self._cut:
            return
        for t in flat_targets:
            if any(t is v for r in self._records for v in r.outputs.values()) \
                    or any(t is w for w in self._watched_values):
                continue
            if self._cut:
                region = self._cut[-1]
                raise CompileError(
                    f"the GradientTape block enters its own tape again (line "
                    f"{region.resume.lineno}): srcgrad recorded the statements before that "
                    "line only, and a target may have been computed after it",
                    region.origin(region).short(), None,
                    "compute the target before entering the tape again")
            region, exc_type = self._failed[-1]
            raise RuntimeError(
                f"the GradientTape block at {region.origin(region).short()} ended with "
                f"{exc_type.__name__}, and srcgrad records a block only when it ends normally: "
                "a target it computed has no recorded gradient. Catch the exception inside the "
                "block, or compute the target in a block that ends normally")

    def _start_differentiating(self, caller):
        """Raise TensorFlow's errors for a gradient that cannot be taken now (``caller``:
        the frame asking)."""
        spent_in = self._spent_in
        if spent_in is not None and self.persistent:
            raise CompileError(
                "a persistent tape nested in a GradientTape block, asked for a gradient after "
                "that block: srcgrad compiled the two blocks as one and kept the inner tape's "
                "record only while the outer block ran", spent_in.origin(spent_in).short(),
                None, "take the inner tape's gradients inside the outer block (as many as "
                "needed: it is persistent there), or end the inner block outside the outer one")
        if spent_in is not None and not once.asked_inside(spent_in, self._spent_as):
            # (TensorFlow would answer: this tape's gradient was never taken.)
            raise CompileError(
                f"`{self._spent_as}`, a tape whose block is nested in the GradientTape block "
                f"at {spent_in.origin(spent_in).short()}, asked for a gradient after that "
                "block: srcgrad compiled the two blocks as one, and records the inner tape "
                "for the gradients taken inside the outer block only",
                spent_in.origin(spent_in).short(), None,
                "enter the tapes in one with statement (with sg.GradientTape() as g, "
                "sg.GradientTape() as d:), each asked after it, or take the inner tape's "
                "gradient inside the outer block")
        if spent_in is not None:
            raise RuntimeError(
                f"{_NOT_PERSISTENT} (This tape recorded a block nested in the GradientTape "
                f"block at {spent_in.origin(spent_in).short()}, whose gradient was taken "
                "inside that block.)")
        if self._used and not self.persistent:
            raise RuntimeError(_NOT_PERSISTENT)
        if self._current is not None:
            raise RuntimeError("GradientTape.gradient was called inside the tape's with block; "
                               "call it after the block ends")
        for record in self._records:
            if record.unkept is not None:
                if not _called_from(caller, *record.unkept):
                    region = record.region
                    raise RuntimeError(
                        f"srcgrad did not copy what the GradientTape block at "
                        f"{region.origin(region).short()} read, as the statement after it "
                        f"(line {record.unkept[1]}) takes its gradient; that statement did not (an "
                        "exception?), and the arrays may have changed since. Take the "
                        "gradient in the statement after the block")
        self._used = True
        if not self.persistent:
            variables._TAPES.discard(self)

    def _variable_changes(self, variable):
        """``variable`` is about to be assigned: the blocks recorded so far keep what they read."""
        value = variable.read_value()
        for record in self._records:
            record.held.setdefault(variable, value)

    def _vjp(self, flat_targets, seeds, flat_sources, rows=False, keep=None):
        """Adjoints of ``flat_sources`` (None where unconnected) for seeded targets.

        Blocks are differentiated last to first; a value one block computed and
        a later block read carries its adjoint back to the earlier block.
        ``rows``: the seeds (given) have a leading axis of rows, and so do the
        adjoints returned.
        """
        for k, source in enumerate(flat_sources):
            if type(source) is not Variable:  # (a Variable's array is plain data)
                check_plain_data(source, "the source" if len(flat_sources) == 1
                                 else f"source {k}")
        if keep is None:  # (a record another tape reads too: read, never emptied)
            keep = self.persistent or any(r.shared for r in self._records)
        if rows and any(r.rows_entry() is None for r in self._records):
            return self._vjp_by_rows(flat_targets, seeds, flat_sources, keep)
        grads = [None] * len(flat_sources)
        records = self._records
        # A target seeds the last block that binds a name to it (only: what flows on to
        # the earlier blocks goes through that block's code and is carried back, so
        # seeding an earlier binding of the same object too would count its identity
        # twice: ``y = x`` then ``tape.gradient(y, x)`` is 1, not 2).
        to_block = [[] for _ in records]
        for t, s in zip(flat_targets, seeds):
            seed = s if s is not None else np.array(1.0) if type(t) in _SCALAR_TARGETS \
                else np.ones_like(np.asarray(t), dtype=float)
            i = _last_binding(records, t, len(records))
            if i is not None:
                to_block[i].append((t, seed))
            elif any(t is w for w in self._watched_values):
                # A watched value no block binds is its own target: d x / d x is the seed
                # (TensorFlow gives ones).
                for k, source in enumerate(flat_sources):
                    if t is source:
                        grads[k] = seed if grads[k] is None else grads[k] + seed
            else:
                _check_not_filled(records, t)
        where = {}  # id(source) -> its positions (a source may be given twice)
        for k, source in enumerate(flat_sources):
            where.setdefault(id(source), []).append(k)
            if type(source) in PYTHON_NUMBERS and len(where[id(source)]) > 1:
                raise ValueError(_ONE_NUMBER)
        reported = set()  # ids of Python numbers an adjoint was reported for
        for i in range(len(records) - 1, -1, -1):
            earlier = records[:i]
            nrows = len(seeds[0]) if rows else None
            for obj, adjoint, carried in records[i].backward(to_block[i], flat_sources, earlier,
                                                             keep, nrows):
                if obj is not None:
                    if type(obj) in PYTHON_NUMBERS and id(obj) in where:
                        if id(obj) in reported:  # watched under two names
                            raise ValueError(_ONE_NUMBER)
                        reported.add(id(obj))
                    for k in where.get(id(obj), ()):
                        grads[k] = adjoint if grads[k] is None else grads[k] + adjoint
                if carried is not None:
                    j = _last_binding(records, carried, i)
                    if j is not None:
                        to_block[j].append((carried, adjoint))
        return grads

    def _vjp_by_rows(self, flat_targets, seeds, flat_sources, keep):
        """Row by row: the adjoint code of a block run once takes one seed per target."""
        (rows,) = seeds
        per_row = [self._vjp(flat_targets, [row], flat_sources, keep=keep or k < len(rows) - 1)
                   for k, row in enumerate(rows)]
        out = []
        for k, source in enumerate(flat_sources):
            got = [g[k] for g in per_row]
            if all(g is None for g in got):
                out.append(None)
                continue
            shape = np.shape(source)
            out.append(np.stack([np.zeros(shape) if g is None else np.broadcast_to(g, shape)
                                 for g in got]))
        return out


def _called_from(frame, filename, first, last, depth=4):
    """Is ``frame``, or one of the few that called it (a wrapper of ``gradient``: a
    profiler's, a mock's), at lines ``first``..``last`` of ``filename``? (By file, not
    code object: IPython runs a cell's statements as code objects of their own.)"""
    while frame is not None and depth:
        if frame.f_code.co_filename == filename and first <= frame.f_lineno <= last:
            return True
        frame, depth = frame.f_back, depth - 1
    return False


def _reads_as_compiled(entry, values, watched):
    """Do the reads ``entry``'s code treats as sources give the watched values now, and
    the others not (``compiler/watched_reads.py``; ``values``: the block's inputs)? Its
    nested tapes' reads too, of what they watch."""
    return isinstance(entry, _Cannot) or (
        not entry.watch_reads or watched.pattern(entry.watch_reads, values) == entry.watch_pattern
    ) and all(n.pattern(values) == n.compiled for n in entry.nested_reads)


def run_in_place(tape, block, values):
    """The runner of ``@sg.function``'s blocks compiled in place (``inplace.py``)."""
    if type(tape) is not GradientTape:
        return None  # not a tape of ours: the block runs as written
    return tape._run_in_place(block, values, sys._getframe(1))


def _last_binding(records, value, before):
    """The index of the last of ``records[:before]`` whose block binds a name it is
    seeded at to ``value`` (the object, or a container holding it), or None."""
    for i in range(before - 1, -1, -1):
        if records[i].binds(value):
            return i
    return None


_ITEM_DEPTH = 4  # how deep in nested containers a target is looked for


def _outputs(region, inputs):
    """What the block's code returns: the names it binds, and its inputs it writes into
    (``y[0] = ...``, ``out.append(...)`` into what was made before it: targets too)."""
    bound = once.bound_names(region.statements)
    filled = written_into(region.statements) & set(inputs)
    return sorted(set(bound) | filled)


def _aliases(sample):
    """Which of the block's inputs (and the items of the lists, tuples and dicts among
    them) are one array: the code is compiled for that, since watching is by identity
    (``kern(X, X)`` after ``kern(X, Z)``: the second is the watched array too)."""
    seen, pairs = {}, []
    for i, v in enumerate(sample):
        t = type(v)
        if t is np.ndarray or t is Variable:
            first = seen.setdefault(id(v), (i,))
            if first != (i,):
                pairs.append(((i,), first))
        elif (t is list or t is tuple or t is dict) and len(v) <= _ALIAS_ITEMS:
            for k, item in (v.items() if t is dict else enumerate(v)):
                if type(item) is np.ndarray or type(item) is Variable:
                    first = seen.setdefault(id(item), (i, k))
                    if first != (i, k):
                        pairs.append(((i, k), first))
    return tuple(pairs)


_ALIAS_ITEMS = 64


def _check_not_filled(records, target):
    """Refuse a target no block binds that a block wrote, into an array or a container
    the block was given (``y[0] = ...``, ``d["loss"] = ...`` into what was made before
    it): a tape seeds what a block binds by name, and its gradient is not None."""
    for record in records:
        entry = record.once[0] if record.once else None
        for n in set(getattr(entry, "filled", ())) | getattr(entry, "filled_through", set()):
            holder = record.values.get(n)
            if holder is None:
                continue
            if holder is target or type(holder) in (list, tuple, dict) \
                    and _path_to(holder, target, _ITEM_DEPTH) is not None:
                raise CompileError(
                    f"the target is `{n}` or an item of it, which the GradientTape block "
                    "wrote into (an item stored or appended) rather than bound: srcgrad "
                    "seeds the values a block binds to names, and cannot tell what such "
                    "a target depends on", record.region.origin(record.region).short(), None,
                    f"bind the value to a name in the block (`loss = ...; {n}[...] = loss`) "
                    "and take the gradient of that name, or make the container in the "
                    "block")


def _path_to(container, value, depth):
    """The keys and indices leading from ``container`` to the object ``value``, or None."""
    items = container.items() if type(container) is dict else enumerate(container)
    for k, item in items:
        if item is value:
            return (k,)
        if depth > 1 and type(item) in (list, tuple, dict):
            rest = _path_to(item, value, depth - 1)
            if rest is not None:
                return (k,) + rest
    return None


def _seeded_at(zeros, path, seed):
    """``zeros`` (a container's zero seed: lists and dicts) with ``seed`` added at ``path``."""
    out = dict(zeros) if isinstance(zeros, dict) else list(zeros)
    k = path[0]
    out[k] = _seeded_at(out[k], path[1:], seed) if len(path) > 1 else out[k] + seed
    return out


def _seed_shaped(seed, target):
    """``seed`` given the target's shape: the backward code is compiled for the shapes of
    the block's values (an adjoint has its value's shape), and ``sum(target * seed)`` is
    the same function of the target with the seed broadcast to it, or summed down to it."""
    shape, given = np.shape(target), np.shape(seed)
    if given == shape:
        return seed
    try:
        both = np.broadcast_shapes(shape, given)
    except ValueError:
        raise ValueError(f"output_gradients: a seed of shape {given} for a target of shape "
                         f"{shape}; they do not broadcast together") from None
    if both == shape:
        return np.broadcast_to(seed, shape)
    return runtime.unbroadcast(np.broadcast_to(seed, both), np.broadcast_to(0.0, shape))


def _zero_seed(value, rows=None):
    """The seed of a value of the block no gradient is asked for: zeros taking no memory
    (with ``rows``, a leading axis of that many rows)."""
    if rows is not None:
        return runtime.zeros_rows(value, np.zeros((rows,)))
    if isinstance(value, np.ndarray):
        # (np.broadcast_to's read-only view of a zero, made without its argument handling)
        dtype = _float_dtype(value)
        out = np.ndarray(value.shape, dtype, np.zeros((), dtype), 0, (0,) * value.ndim)
        out.flags.writeable = False
        return out
    if isinstance(value, (list, tuple)):  # (the adjoint of a tuple is a list)
        return [_zero_seed(v) for v in value]
    if isinstance(value, dict):
        return {k: _zero_seed(v) for k, v in value.items()}
    return runtime.zeros_like(value)


def _array_of(variable):
    """What the compiled block computes with in place of a Variable it uses only as an
    array: its array; for a 0-d one, the NumPy scalar (a scalar's arithmetic is NumPy's
    quick scalar math, a 0-d array's a ufunc call; ``a[()]``, ``a.shape``, ``float(a)``
    and every ufunc read both alike)."""
    value = variable.read_value()
    if value.ndim == 0 and value.dtype.kind in "fc":
        return value[()]
    return value


def _float_dtype(value):
    """The dtype a gradient of ``value`` has: its own if inexact, else float64."""
    return value.dtype if value.dtype.kind in "fc" else np.dtype(np.float64)


def _rows_finish(g, source, lead, shape, unconnected):
    """A Jacobian for ``source`` from row adjoints ``g``: shape ``shape + source.shape``."""
    value = np.asarray(source)
    dtype = _float_dtype(value)
    if g is None or not is_float_like(source):
        if unconnected is UnconnectedGradients.NONE:
            return None
        return np.zeros(shape + value.shape, dtype=dtype)
    if type(g) is np.ndarray and g.dtype == dtype and g.flags.writeable \
            and g.shape == lead + value.shape:
        # (The backward code's own array, as ``_finish`` returns it: no copy.)
        return g.reshape(shape + value.shape)
    full = np.broadcast_to(g, lead + value.shape)
    return full.reshape(shape + value.shape).astype(dtype)


def _finish(g, source, unconnected):
    """A source's gradient with its shape and float dtype, or None / zeros if unconnected."""
    if type(g) is np.ndarray and (type(source) is Variable or type(source) is np.ndarray):
        value = source.read_value() if type(source) is Variable else source  # the common case
        if g.dtype == value.dtype and g.shape == value.shape and value.dtype.kind == "f" \
                and value.ndim and g.flags.writeable:
            return g
    value = np.asarray(source) if _is_variable(source) else source
    if _is_variable(source) and value.ndim == 0:
        value = value[()]  # a 0-d Variable gets a NumPy scalar, as TF gives a scalar tensor
    if not is_float_like(source):
        g = None  # ints and bools are never watched (TensorFlow warns and ignores them)
    if g is None:
        if unconnected is UnconnectedGradients.NONE:
            return None
        return np.zeros_like(np.asarray(value, dtype=_float_dtype(np.asarray(value))))
    return _cast(g, value if not isinstance(value, (int, bool)) else float(value))


class _NoRecording:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _is_data(value):
    """Values a block reads from its frame that its code takes as arguments: all but
    modules (constants of the code) and tapes (entered by the code)."""
    return not isinstance(value, (types.ModuleType, GradientTape)) \
        and not getattr(type(value), "__srcgrad_recorder__", False)


def _ids_with_items(values, depth=_ITEM_DEPTH):
    """Ids of ``values`` and of the items of the lists, tuples and dicts among them."""
    out = set()
    for v in values:
        out.add(id(v))
        if depth > 1 and type(v) in (list, tuple, dict):
            out |= _ids_with_items(v.values() if type(v) is dict else v, depth - 1)
    return out


def _pairs(items):
    """(object, adjoint) pairs, with watched containers matched item by item."""
    for obj, adjoint in items:
        if isinstance(obj, (list, tuple)) and isinstance(adjoint, list):
            yield from _pairs(zip(obj, adjoint))
        elif isinstance(obj, (list, tuple)) and isinstance(adjoint, np.ndarray) \
                and _shape_of(obj) == adjoint.shape:
            # The list read as an array (``np.concatenate([xs, ys])``): item by item.
            yield from _pairs(zip(obj, runtime.array_grad(adjoint, obj)))
        elif isinstance(obj, dict) and isinstance(adjoint, dict):
            yield from _pairs((obj[k], adjoint[k]) for k in obj)
        elif isinstance(adjoint, dict) and trees.record_fields(type(obj)) is not None:
            yield from _pairs((getattr(obj, k), adjoint[k]) for k in adjoint)  # a dataclass
        else:
            yield obj, adjoint


def _shape_of(value):
    """NumPy's shape of a list or tuple, or None for a ragged one."""
    try:
        return np.shape(value)
    except ValueError:
        return None


def _read_only(value):
    return read_only(value) if type(value) is np.ndarray and value.flags.writeable else value


def _only(values):
    return values[0]


_LEAVES = frozenset({np.ndarray, Variable, float, np.float64})
# What a block's backward code reports adjoints for that ``_pairs`` leaves as it is.
_PLAIN_OBJECTS = _LEAVES | {str}


def _flatten(structure):
    """The leaves of a nested list/tuple/dict/namedtuple/dataclass (``trees.py``), and a
    function rebuilding the structure."""
    kind = type(structure)
    if kind is np.ndarray or kind is Variable or kind is float or isinstance(structure, np.generic):
        return [structure], _only
    if (kind is list or kind is tuple) and (_LEAVES.issuperset(map(type, structure)) or not any(
            isinstance(s, (list, tuple, dict)) or trees.is_tree(s) for s in structure)):
        # The common case, a flat list of Variables: no per-leaf closures.
        return list(structure), list if kind is list else tuple
    if not trees.is_tree(structure):
        return [structure], _only
    pairs, treedef = trees.flatten(structure, strict=False)
    return [leaf for _, leaf in pairs], functools.partial(trees.unflatten, treedef)


def _check_one_array(target, method):
    """``jacobian``'s target is one array, as TensorFlow's is: a tuple, list, dict or
    record of them has no one Jacobian."""
    if isinstance(target, (list, tuple, dict)) or trees.is_tree(target):
        raise TypeError(
            f"tape.{method}'s target must be one array (or number), not a "
            f"{type(target).__name__}: call it once for each array, or stack them first "
            "(np.concatenate of their ravel())")
