"""Objects the code is handed (a global, an argument) whose state the code changes, found
by a battery of control programs:

- an attribute a method sets (a PID's ``self.prev``, first None; a foot's
  ``self.contact`` flag; a gait's ``self.mode`` string) was read once, when compiling,
  to decide ``if self.prev is None`` / ``if self.contact`` for every call: the value and
  the gradient were wrong (``attributes.set_in_methods``);
- a ``@property``, ``__getitem__`` or ``__matmul__`` reading an attribute the code set
  (``robot.state = x0``, then ``robot.energy``) ran as a constant: gradient 0;
- an array stored in a dict or an attribute (``log["start"] = x``, ``holder.v = x``) and
  then written into (``x[0] = ...``, ``x += u``): the stored value was differentiated as
  a snapshot (gradient 0 or partial): now refused as for a list.

Checked against the values Python computes and central differences in every form."""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form  # noqa: E402


class PID:
    def __init__(self, kp, kd):
        self.kp, self.kd = kp, kd
        self.prev = None

    def __call__(self, err):
        d = 0.0 if self.prev is None else (err - self.prev)
        self.prev = err
        return self.kp * err + self.kd * d


class Foot:
    def __init__(self):
        self.contact = False

    def step(self, x):
        if self.contact:
            x = x * 0.5
        if np.all(x > 0.3):
            self.contact = True
        return x


class Gait:
    def __init__(self):
        self.mode = "swing"

    def step(self, x):
        if self.mode == "swing":
            self.mode = "stance"
            return x * 1.1
        return x * 0.9


pid, foot, gait = PID(1.0, 1.0), Foot(), Gait()


def run_pid(th):
    pid.prev = None
    for _ in range(3):
        th = th + 0.1 * pid(-th)
    return np.sum(th ** 2)


def run_foot(x):
    foot.contact = False
    for _ in range(3):
        x = x + foot.step(x)
    return np.sum(x ** 2)


def run_gait(x):
    gait.mode = "swing"
    for _ in range(3):
        x = x + gait.step(x)
    return np.sum(x ** 2)


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", [run_pid, run_foot, run_gait], ids=lambda f: f.__name__)
def test_state_set_by_methods(f):
    x = np.array([0.4, 0.25])
    value, grad = sg.value_and_grad(f)(x)
    np.testing.assert_allclose(value, f(x.copy()), rtol=1e-12)
    np.testing.assert_allclose(grad, _fd(f, x), rtol=1e-6)
    assert_every_form(f, x, order=1)


def test_state_reset_between_calls_compiles_for_each():
    """A PID handed in the middle of a run (``prev`` set): decided when running too."""
    x = np.array([0.4, 0.25])

    def resumed(th):
        for _ in range(2):
            th = th + 0.1 * pid(-th)
        return np.sum(th ** 2)

    pid.prev = np.array([-0.3, -0.1])
    g = sg.grad(resumed)(x)
    pid.prev = np.array([-0.3, -0.1])
    want = _fd(lambda v: (setattr(pid, "prev", np.array([-0.3, -0.1])), resumed(v))[1], x)
    np.testing.assert_allclose(g, want, rtol=1e-6)


class Robot:
    def __init__(self):
        self.state = np.zeros(2)

    @property
    def energy(self):
        return np.sum(self.state ** 2)

    def __getitem__(self, i):
        return self.state[i]

    def __matmul__(self, other):
        return self.state @ other


robot = Robot()


def with_property(x0):
    robot.state = x0
    return robot.energy


def with_getitem(x0):
    robot.state = x0
    return robot[0] * robot[1]


def with_matmul(x0):
    robot.state = x0
    return robot @ np.array([1.0, 3.0])


@pytest.mark.parametrize("f", [with_property, with_getitem, with_matmul],
                         ids=lambda f: f.__name__)
def test_implicit_methods_of_a_handed_object(f):
    x = np.array([1.0, 0.5])
    np.testing.assert_allclose(sg.grad(f)(x), _fd(f, x), rtol=1e-6)
    assert_every_form(f, x, order=2)


class Box:
    def __init__(self):
        self.v = None


holder = Box()


def dict_const_key(u):
    x = np.array([0.5, -0.2])
    log = {}
    log["start"] = x
    x[0] = x[0] + u
    return np.sum(log["start"] ** 2)


def handed_attr(u):
    x = np.array([0.5, -0.2])
    holder.v = x
    x[0] = x[0] + u
    return np.sum(holder.v ** 2)


def dict_then_iadd(u):
    x = np.array([0.5, -0.2])
    log = {}
    log["s"] = x
    x += u
    return np.sum(log["s"] ** 2)


@pytest.mark.parametrize("f", [dict_const_key, handed_attr, dict_then_iadd],
                         ids=lambda f: f.__name__)
def test_array_kept_by_a_dict_or_object_then_written_refused(f):
    with pytest.raises(sg.CompileError, match="share"):
        sg.grad(f)(0.3)


def test_array_written_before_it_is_kept():
    """Filled first, then stored: not refused, and right."""
    def f(x):
        out = np.zeros(3)
        for i in range(3):
            out[i] = np.sin(x[i])
        log = {}
        log["out"] = out
        holder.v = out
        return np.sum(log["out"] ** 2) + np.sum(holder.v)
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(sg.grad(f)(x), _fd(f, x), rtol=1e-6)


class _Bare:
    pass


_BOX = _Bare()


def _reads_box(z):
    return np.sum(np.sin(z) * _BOX.v) ** 2


def test_attribute_first_set_in_a_block_read_by_a_helper():
    """(An AttributeError from the generated code: the attribute did not exist when the
    block started.)"""
    x = np.array([0.4, -0.3])
    if hasattr(_BOX, "v"):
        del _BOX.v
    with sg.GradientTape() as t:
        t.watch(x)
        for k in range(2):
            _BOX.v = x * (k + 1)
        E = _reads_box(x)
    want = _fd(lambda z: np.sum(np.sin(z) * 2 * z) ** 2, x)
    np.testing.assert_allclose(t.gradient(E, x), want, rtol=1e-6)
