"""``GradientTape``: TensorFlow's tape semantics on NumPy values, by source transformation.

Entering a tape finds the block it records in the caller's source
(``blocks.locate``). A ``with`` block the compiler accepts runs once
(``once.py``, ``compiler/recorded.py``): its compiled forward code runs in
place of its statements and keeps a record, and ``gradient`` runs only the
backward code from that record, matching the adjoints it reports to the
sources by identity, as TensorFlow matches tensors.

Statements between ``tape.__enter__()`` and ``tape.__exit__(...)`` run once
the same way, and so do nested tapes' blocks (compiled into the outer
block's code); statements outside the compiler's language that no gradient
flows through run as written inside the compiled block
(``passes/as_written.py``). In an ``@sg.function`` the block is compiled
into the function's own code (``inplace.py``, ``_run_in_place``). Other
blocks (a ``return`` or ``yield`` in them, a persistent nested tape, refused
by the compiler) still run as plain Python, and ``gradient`` compiles code
that reruns them from copies of the values noted at entry
(``compiler.pipeline.compile_region``), refusing what would not repeat
(``passes/repeatable.py``), until the tape issue's remaining work moves them
to the run-once design.
"""
import functools
import sys
import warnings
from collections import OrderedDict

import numpy as np

from .. import runtime, trees, variables
from ..compiler.cache import _cast, _kind, _Same, remember
from ..compiler.pipeline import compile_region
from ..compiler.recorded import compile_recorded
from ..errors import CompileError
from ..passes.tape_blocks import region_inputs, region_outputs
from ..variables import UnconnectedGradients, Variable, check_plain_data, is_float_like
from . import blocks, kept, once

_COMPILED = OrderedDict()  # bounded: cache.remember


class _Cannot:
    """A block compile_recorded refused (recorded by the rerun design, which reports
    the refusal if a gradient needs what was refused)."""

    text = ""

    def __init__(self, error):
        self.error = error


_NOT_PERSISTENT = "GradientTape.gradient can only be called once on non-persistent tapes."


def _is_variable(value):
    return isinstance(value, Variable)


class _Record:
    """One recorded block: where it is, and the values it started from and ended with."""

    def __init__(self, where, inputs, values):
        self.region = where
        self.inputs = inputs
        self.values = values
        self.outputs = {}
        self.prewatched = []
        self.snapshots = {}
        self.held = {}  # Variable -> its array when the block ran, if assigned since
        self.once = None  # a block run once: (compiled code, its record), see once.py
        self.originals = {}  # id(copy in the record) -> the user's value it was copied from
        self.kept = {}  # the same for the copies of the inputs a rerun block starts from
        self.skipper = None

    def carried_inputs(self, earlier):
        """Inputs holding a value an ``earlier`` record made, or one watched before the
        block: gradients flow on through them to the earlier blocks."""
        return [n for n in self.inputs
                if any(self.values[n] is v for v in self.prewatched)
                or any(self.values[n] is v for r in earlier for v in r.outputs.values())]

    def run_once(self, frame, carried, watch_variables):
        """Run the block's compiled code in place of its statements; False if it cannot be."""
        region = self.region
        if region.runs_once is None:
            region.runs_once = once.why_not(region) or True
        if region.runs_once is not True:
            return False
        if region.exit_stmt is not None and not once.in_code(frame.f_code, region.exit_stmt):
            region.runs_once = ("its statements run as code of their own (an IPython cell), "
                                "which no trace function can skip")
            return False
        local = frame.f_locals
        if any(n in local and not _is_data(local[n]) and n != region.tape_name
               and local is not frame.f_globals for n in region.inputs):
            return False
        bound = self.run_compiled(carried, watch_variables)
        if bound is None:
            return False
        once.write_back(frame, bound)
        self.skipper = once.Skipper(frame, region.exit_stmt and region.exit_stmt.lineno)
        self.skipper.arm()
        return True

    def run_compiled(self, carried, watch_variables):
        """Run the block's compiled forward code: the variables it binds (name -> value),
        or None if it cannot run compiled for these values."""
        region = self.region
        # Variables the block only computes with run as their (frozen) arrays: no
        # Variable arithmetic in the compiled code; a trainable one is watched by name.
        plain = once.plain_variables(region, self.inputs, self.values)
        while True:
            sample = [self.values[n].read_value() if n in plain else self.values[n]
                      for n in self.inputs]
            as_arrays = tuple(n for n in plain if watch_variables and self.values[n].trainable)
            entry = self._entry(sample, carried, watch_variables, as_arrays)
            if plain and (entry is None or isinstance(entry, _Cannot)
                          or once.tells_variables_apart(entry)):
                region.variable_uses = set(region.variable_uses) | set(plain)  # not again
                plain = []
                continue
            break
        if entry is None or isinstance(entry, _Cannot):
            return None
        outs, watched, record = entry.forward(*sample)
        self.originals = kept.keep_as_computed(record, entry.copied, entry.private_reads,
                                               entry.through_reads, sample)
        unwrapped = {id(a): self.values[n] for n, a in zip(self.inputs, sample) if n in plain}
        self.originals.update(unwrapped)
        watched = [unwrapped.get(id(v), v) for v in watched]
        bound = {n: unwrapped.get(id(v), v) for n, v in zip(entry.outputs, outs)
                 if v is not runtime.UNBOUND}
        self.sample, self.as_arrays = sample, as_arrays
        if region.nested_tapes is None:
            region.nested_tapes = once.nested_tapes(region)
        for name in region.nested_tapes:
            # The compiled block never entered it: a tape whose gradient was taken inside.
            spent = GradientTape()
            spent._spent_in = region
            bound[name] = spent
        self.once = (entry, record)
        self.carried = carried
        self.outputs = bound
        self.watched = watched
        return bound

    def _entry(self, sample, carried, watch_variables, as_arrays):
        """The block's compiled code for these values (cached), a _Cannot, or None if a
        value is not plain data."""
        region = self.region
        key = (region.key, _Same(region.globals), tuple(self.inputs),
               tuple(_kind(v) for v in sample), watch_variables, tuple(carried), as_arrays,
               "once")
        entry = _COMPILED.get(key)
        if entry is not None and (isinstance(entry, _Cannot) or entry.guards.valid()):
            _COMPILED.move_to_end(key)
            if isinstance(entry, _Cannot):
                region.refusal = entry.error
            return entry
        try:
            for value in sample:
                check_plain_data(value, "")
        except TypeError:
            return None  # refused where the value is used, as the rerun design does
        try:
            entry = compile_recorded(region, self.inputs, sample, once.bound_names(
                region.statements), watch_variables, _is_variable, tuple(carried),
                as_arrays=as_arrays)
            entry.watch_variables = watch_variables  # for its row-mode twin
        except CompileError as e:
            entry = _Cannot(e)  # recorded by the rerun design, which reports it if it matters
            region.refusal = e
        remember(_COMPILED, key, entry)
        return entry

    def rows_entry(self):
        """Row-mode backward code over this block's record, or None if its forward code
        would record differently (then the rows go one by one)."""
        entry = self.once[0]
        if not hasattr(entry, "rows"):
            try:
                rows = compile_recorded(self.region, self.inputs, self.sample, entry.outputs,
                                        entry.watch_variables, _is_variable, tuple(self.carried),
                                        rows=True, as_arrays=self.as_arrays)
            except CompileError:
                rows = None
            entry.rows = rows if rows is not None and rows.forward_text == entry.forward_text \
                and rows.seeded == entry.seeded else None
            if entry.rows is not None:
                remember(_COMPILED, (id(entry), "rows"), entry.rows)
        return entry.rows

    def backward(self, seeded, flat_sources, earlier, keep, rows=None):
        """(source, adjoint, carried) triples from this block's record: ``source`` is
        the object the adjoint is for (None: counted by an earlier block), ``carried``
        the value an earlier block made or watched that it seeds there (or None).
        ``seeded``: (target, seed) pairs."""
        entry, record = self.once
        if rows is not None:
            entry = self.rows_entry()
        seeds = {}
        for t, seed in seeded:
            name = next((n for n in entry.seeded if self.outputs.get(n) is t), None)
            if name is not None:
                seeds[name] = seed if name not in seeds else seeds[name] + seed
        if not seeds:
            return []
        args = [seeds[n] if n in seeds else _zero_seed(self.outputs.get(n), rows)
                for n in entry.seeded]
        live = set().union(*(entry.reaches[n] for n in seeds))
        if keep:  # the backward code may run again: what it restores in place is copied
            run, originals = kept.pristine(record, entry.restored)
            take = run.get
        else:
            take, originals = record.pop, {}
        if self.held:  # Variables assigned since the block ran: their values then
            def take(name, default, take=take):
                value = take(name, default)
                if _is_variable(value) and value in self.held:
                    originals[id(self.held[value])] = value
                    return self.held[value]
                return value

        def original(obj):  # the user's object an adjoint reported for a copy is for
            obj = originals.get(id(obj), obj)
            return self.originals.get(id(obj), obj)
        previous, runtime.HELD[0] = runtime.HELD[0], self.held
        try:
            pairs = [(original(obj), g) for obj, g in _pairs(entry.backward(take, live, *args))]
        finally:
            runtime.HELD[0] = previous
        if not keep:
            self.once = (self.once[0], {})
        carried = {id(self.values[n]) for n in self.carried}
        out = []
        by_name = {}
        for obj, adjoint in pairs:
            if type(obj) is str:
                by_name[obj] = adjoint
                continue
            # A value an earlier block made and reports where it made it (its
            # adjoint there includes this block's, passed on as its seed).
            reported = any(r.once is not None and any(r.outputs.get(n) is obj
                                                      for n in r.once[0].seeded) for r in earlier)
            out.append((None if reported else obj, adjoint, obj if id(obj) in carried else None))
        # A value the block computed, asked for as a source: its adjoint where the
        # block first bound it (that one carries what flows through its other names).
        watched = [obj for obj, _ in pairs if type(obj) is not str]
        for source in flat_sources:
            if any(source is v for v in self.values.values()) or any(source is w for w in watched):
                continue  # reported where the block watched it (``W = p["W"]; tape.watch(W)``)
            names = [n for n in by_name if self.outputs.get(n) is source]
            if names:
                first = min(entry.order[n] for n in names)
                for n in names:
                    if entry.order[n] == first:
                        out.append((source, by_name[n], None))
        return out

    def compiled(self, targets, watch_variables, watch_inputs=(), rows=False, watch_outputs=()):
        sample = [self.values[n] for n in self.inputs]
        key = (self.region.key, _Same(self.region.globals), tuple(self.inputs),
               tuple(_kind(v) for v in sample),
               tuple(targets), watch_variables, tuple(watch_inputs), tuple(watch_outputs), rows)
        entry = _COMPILED.get(key)
        if entry is not None and entry.guards.valid():
            _COMPILED.move_to_end(key)
        else:
            for name, value in zip(self.inputs, sample):
                check_plain_data(value, f"`{name}`, which the recorded block reads,")
            try:
                entry = compile_region(self.region, self.inputs, sample, list(targets),
                                       watch_variables, _is_variable,
                                       watch_inputs=tuple(watch_inputs), rows=rows,
                                       watch_outputs=tuple(watch_outputs))
            except CompileError:
                if self.region.refusal is not None:  # why it could not run once: more to the point
                    raise self.region.refusal from None
                raise
            remember(_COMPILED, key, entry)
        return entry


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
        self._spent_in = None  # the block run once that this nested tape's block was in

    # -- recording ----------------------------------------------------------------
    def __enter__(self):
        return self._enter(sys._getframe(1))

    def _enter(self, frame):
        """Start recording the ``with`` block ``frame`` is at (the user's, also when a
        ForwardAccumulator enters its tape)."""
        if self._current is not None:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        where = blocks.locate(frame)
        if where.inputs is None:
            where.inputs = region_inputs(where)
            where.outputs = region_outputs(where)
        names = where.inputs
        local = frame.f_locals
        inputs = [n for n in names if n in local and _is_data(local[n])]
        record = self._current = self._new_record(where, {n: local[n] for n in inputs})
        try:
            ran = record.run_once(frame, record.carried_inputs(self._records),
                                  self.watch_accessed_variables)
        except BaseException as e:
            self._current = None
            self._failed.append((where, type(e)))
            raise
        if ran:
            for value in record.watched:
                self.watch(value)
        else:
            # Rerun from these values: copies, so that writes into the user's arrays
            # (in the block or after it) do not change what is differentiated.
            start = {n: v for n, v in record.values.items() if n not in record.snapshots}
            record.kept = kept.keep_as_computed(start, list(start))
            record.snapshots.update({n: v for n, v in start.items() if v is not record.values[n]})
        return self

    def _run_in_place(self, block, values):
        """Run a block of an ``@sg.function`` compiled in place (``inplace.py``): the
        values of the variables it binds, in the order of ``region.outputs``, or None
        if it cannot run compiled (then it runs as written, in a ``with`` statement)."""
        region, names = block
        if self._current is not None:
            return None  # re-entered: the with statement raises TensorFlow's error
        given = {n: v for n, v in zip(names, values) if _is_data(v)}
        if len(given) != len(names) and any(
                n != region.tape_name for n, v in zip(names, values) if not _is_data(v)):
            return None
        record = self._new_record(region, given)
        try:
            bound = record.run_compiled(record.carried_inputs(self._records),
                                        self.watch_accessed_variables)
        except BaseException as e:
            self._failed.append((region, type(e)))
            raise
        if bound is None:
            return None
        for value in record.watched:
            self.watch(value)
        self._recorded(record)
        return tuple(bound.get(n, runtime.UNBOUND) for n in region.outputs)

    def _new_record(self, region, values):
        """The record of a block starting from ``values`` (its inputs, name -> value)."""
        record = _Record(region, list(values), values)
        # A Variable's value when the block starts: assign() later must not change the gradient.
        record.snapshots = {n: v.read_value() for n, v in values.items() if _is_variable(v)}
        # Values watched by an earlier block stay watched in this one.
        record.prewatched = list(self._watched_values)
        return record

    def _recorded(self, record):
        """``record``'s block ended normally: its gradient may be asked for."""
        self._records.append(record)
        variables._TAPES.add(self)

    def __exit__(self, exc_type, exc, tb):
        return self._exit(sys._getframe(1), exc_type, exc)

    def _exit(self, frame, exc_type, exc):
        record, self._current = self._current, None
        if record is not None and record.skipper is not None:
            skipper, record.skipper = record.skipper, None
            skipper.disarm()
            if not skipper.skipped or exc_type not in (once.SkipBlock, None):
                raise RuntimeError("srcgrad ran this GradientTape block and could not skip its "
                                   "statements: they ran a second time") from exc
            self._recorded(record)
            return True
        if exc_type is None and record is not None:
            local = frame.f_locals
            record.outputs = {n: local[n] for n in record.region.outputs if n in local}
            self._recorded(record)
        elif record is not None:
            self._failed.append((record.region, exc_type))
        return False

    def watch(self, tensor):
        """Mark ``tensor`` (or a nested list/tuple/dict of them) as a source.

        The block's compiled code knows the watch from its source; at run time
        this only warns, as TensorFlow does, about values that cannot be watched.
        """
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

    def watched_variables(self):
        """The Variables watched explicitly or read by the recorded blocks.

        Reads inside called functions and methods are found by compiling the
        blocks (as the first ``gradient`` would).
        """
        seen = list(self._watched)
        if self.watch_accessed_variables:
            for record in self._records:
                found = [v for v in record.values.values() if _is_variable(v) and v.trainable]
                if record.once is not None:
                    found += record.once[0].variables
                elif record.outputs:
                    found += record.compiled(sorted(record.outputs), True).variables
                seen += [v for v in found if all(v is not s for s in seen)]
        return tuple(seen)

    # -- differentiation ----------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of target [* output_gradients]) / d(sources), shaped like ``sources``."""
        unconnected = UnconnectedGradients.parse(unconnected_gradients)
        self._start_differentiating()
        flat_sources, rebuild = _flatten(sources)
        flat_targets = _flatten(target)[0]
        seeds = _flatten(output_gradients)[0] if output_gradients is not None \
            else [None] * len(flat_targets)
        if len(seeds) != len(flat_targets):
            raise ValueError("output_gradients must have the structure of target")
        self._check_not_lost(flat_targets)
        grads = self._vjp(flat_targets, seeds, flat_sources)
        return rebuild(list(runtime.distinct([_finish(g, s, unconnected)
                                              for g, s in zip(grads, flat_sources)])))

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE):
        """d target / d sources: for each source, shape ``target.shape + source.shape``.

        One run of the block's adjoint code, seeded with every row of the
        identity at once (each adjoint carries a leading axis of rows).
        """
        unconnected = UnconnectedGradients.parse(unconnected_gradients)
        self._start_differentiating()
        flat_sources, rebuild = _flatten(sources)
        shape = np.shape(target)
        size = int(np.prod(shape, dtype=int))
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
        t_shape, s_shape = np.shape(target), np.shape(source)
        if len(t_shape) == 0 or len(s_shape) == 0 or s_shape[0] != t_shape[0]:
            raise ValueError(f"batch_jacobian needs target and source with the same first "
                             f"dimension, got shapes {t_shape} and {s_shape}")
        self._start_differentiating()
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
        """A target computed in a block an exception ended: an error, not a None gradient."""
        if not self._failed:
            return
        for t in flat_targets:
            if any(t is v for r in self._records for v in r.outputs.values()) \
                    or any(t is w for w in self._watched_values):
                continue
            region, exc_type = self._failed[-1]
            raise RuntimeError(
                f"the GradientTape block at {region.origin(region).short()} ended with "
                f"{exc_type.__name__}, and srcgrad records a block only when it ends normally: "
                "a target it computed has no recorded gradient. Catch the exception inside the "
                "block, or compute the target in a block that ends normally")

    def _start_differentiating(self):
        spent_in = self._spent_in
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
            check_plain_data(source, "the source" if len(flat_sources) == 1 else f"source {k}")
        if keep is None:
            keep = self.persistent
        if rows and any(r.once is not None and r.rows_entry() is None for r in self._records):
            return self._vjp_by_rows(flat_targets, seeds, flat_sources, keep)
        grads = [None] * len(flat_sources)
        seeded = [(t, np.ones_like(np.asarray(t), dtype=float) if s is None else s)
                  for t, s in zip(flat_targets, seeds)]
        for t, seed in seeded:
            # A watched value is its own target: d x / d x is the seed (TensorFlow gives ones).
            if any(t is w for w in self._watched_values):
                for k, source in enumerate(flat_sources):
                    if t is source:
                        grads[k] = seed if grads[k] is None else grads[k] + seed
        for i in range(len(self._records) - 1, -1, -1):
            record = self._records[i]
            if record.once is not None:
                earlier = self._records[:i]
                nrows = len(seeds[0]) if rows else None
                for obj, adjoint, carried in record.backward(seeded, flat_sources, earlier, keep,
                                                             nrows):
                    for k, source in enumerate(flat_sources):
                        if obj is not None and obj is source:
                            grads[k] = adjoint if grads[k] is None else grads[k] + adjoint
                    if carried is not None:
                        seeded.append((carried, adjoint))
                continue
            wanted = {}
            for t, seed in seeded:
                # One value under several names (``z = y``, ``result = loss``) is one
                # target: seeded once, through whichever of its names the code differentiates.
                names = tuple(sorted(n for n, value in record.outputs.items() if value is t))
                if names:
                    wanted[names] = seed if names not in wanted else wanted[names] + seed
            if not wanted:
                continue
            carried = record.carried_inputs(self._records[:i])
            names = sorted(wanted)
            # Sources the block computed (``h`` in ``tape.gradient(loss, h)``): their
            # adjoints where the block last bound them.
            computed = sorted({tuple(sorted(n for n, v in record.outputs.items() if v is source))
                               for source in flat_sources
                               if not any(source is v for v in record.values.values())} - {()})
            entry = record.compiled(names, self.watch_accessed_variables, carried, rows, computed)
            args = [record.snapshots.get(n, record.values[n]) for n in record.inputs]
            args += [wanted[n] for n in names]
            originals = {id(record.snapshots[n]): record.values[n] for n in record.snapshots}
            originals.update(record.kept)
            previous, runtime.HELD[0] = runtime.HELD[0], record.held
            try:
                pairs = _pairs(entry.fn(*args))
            finally:
                runtime.HELD[0] = previous
            for obj, adjoint in pairs:
                obj = record.outputs.get(obj) if type(obj) is str else originals.get(id(obj), obj)
                for k, source in enumerate(flat_sources):
                    if obj is source:
                        grads[k] = adjoint if grads[k] is None else grads[k] + adjoint
                if any(obj is record.values[n] for n in carried):
                    seeded.append((obj, adjoint))
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


def run_in_place(tape, block, values):
    """The runner of ``@sg.function``'s blocks compiled in place (``inplace.py``)."""
    if type(tape) is not GradientTape:
        return None  # not a tape of ours: the block runs as written
    return tape._run_in_place(block, values)


def _zero_seed(value, rows=None):
    """The seed of a value of the block no gradient is asked for: zeros taking no memory
    (with ``rows``, a leading axis of that many rows)."""
    if rows is not None:
        return runtime.zeros_rows(value, np.zeros((rows,)))
    if isinstance(value, np.ndarray):
        return np.broadcast_to(np.zeros((), dtype=_float_dtype(value)), value.shape)
    return runtime.zeros_like(value)


def _float_dtype(value):
    return value.dtype if np.issubdtype(value.dtype, np.inexact) else np.float64


def _rows_finish(g, source, lead, shape, unconnected):
    """A Jacobian for ``source`` from row adjoints ``g``: shape ``shape + source.shape``."""
    value = np.asarray(source)
    dtype = _float_dtype(value)
    if g is None or not is_float_like(source):
        if unconnected is UnconnectedGradients.NONE:
            return None
        return np.zeros(shape + value.shape, dtype=dtype)
    full = np.broadcast_to(g, lead + value.shape)
    return full.reshape(shape + value.shape).astype(dtype)


def _finish(g, source, unconnected):
    """A source's gradient with its shape and float dtype, or None / zeros if unconnected."""
    if type(g) is np.ndarray and type(source) is Variable:  # the common case, quickly
        value = source.read_value()
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
    """Values a block reads from its frame: all but modules (they are resolved as globals)."""
    import types

    return not isinstance(value, (types.ModuleType, GradientTape)) \
        and not getattr(type(value), "__srcgrad_recorder__", False)


def _pairs(items):
    """(object, adjoint) pairs, with watched containers matched item by item."""
    for obj, adjoint in items:
        if isinstance(obj, (list, tuple)) and isinstance(adjoint, list):
            yield from _pairs(zip(obj, adjoint))
        elif isinstance(obj, dict) and isinstance(adjoint, dict):
            yield from _pairs((obj[k], adjoint[k]) for k in obj)
        elif isinstance(adjoint, dict) and trees.record_fields(type(obj)) is not None:
            yield from _pairs((getattr(obj, k), adjoint[k]) for k in adjoint)  # a dataclass
        else:
            yield obj, adjoint


def _flatten(structure):
    """The leaves of a nested list/tuple/dict/namedtuple/dataclass (``trees.py``), and a
    function rebuilding the structure."""
    kind = type(structure)
    if (kind is list or kind is tuple) and not any(
            isinstance(s, (list, tuple, dict)) or trees.is_tree(s) for s in structure):
        # The common case, a flat list of Variables: no per-leaf closures.
        return list(structure), list if kind is list else tuple
    if not trees.is_tree(structure):
        return [structure], lambda values: values[0]
    pairs, treedef = trees.flatten(structure, strict=False)
    return [leaf for _, leaf in pairs], functools.partial(trees.unflatten, treedef)
