"""Objects of plain classes built in differentiated code (issue 13: 21 of the third hunt's
refusals were 'creating a `Pendulum` from differentiable values is not supported').

Each object is kept as its attributes (passes/normalize/objects.py). Every program is
checked against central differences to second order, with value_and_grad, a tape and
forward mode; the same physics is written in more than one style (array vs Python-float
state, methods vs helpers taking the object, the object built in an expression)."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees

G = 9.81
X = np.array([0.7, 0.3, -0.4, 1.1])


def check_every_form(f, args=(X,)):
    check_grads(f, args, order=2, wrt=list(range(len(args))))
    assert_forms_agree(f, args, nonzero=True)
    assert_forward_mode_agrees(f, args)


# -- a simulation object with a log, methods calling methods ----------------------------

class Pendulum:
    def __init__(self, length, damping):
        self.length = length
        self.damping = damping
        self.theta = 0.3
        self.omega = 0.0
        self.energy_log = []

    def accel(self):
        return -G / self.length * np.sin(self.theta) - self.damping * self.omega

    def step(self, dt):
        a = self.accel()
        self.omega = self.omega + dt * a
        self.theta = self.theta + dt * self.omega
        self.energy_log.append(0.5 * self.omega ** 2 + G / self.length * (1 - np.cos(self.theta)))

    def run(self, n, dt):
        for _ in range(n):
            self.step(dt)
        return self.theta


def pendulum_loss(x):
    pend = Pendulum(x[0] + 1.0, x[1] ** 2)
    th = pend.run(12, 0.05)
    return th ** 2 + 0.1 * sum(pend.energy_log)


def step_pendulum(p, dt):  # the same, as a helper taking the object
    a = -G / p.length * np.sin(p.theta) - p.damping * p.omega
    p.omega = p.omega + dt * a
    p.theta = p.theta + dt * p.omega


def pendulum_helper_loss(x):
    pend = Pendulum(x[0] + 1.0, x[1] ** 2)
    for _ in range(12):
        step_pendulum(pend, 0.05)
    return pend.theta ** 2 + pend.omega


class Particles:
    """State arrays held by the object and updated in place."""

    def __init__(self, pos, vel, k):
        self.pos = pos.copy()
        self.vel = vel.copy()
        self.k = k

    def forces(self):
        d = self.pos[:, None] - self.pos[None, :]
        return -self.k * np.sum(np.tanh(d), axis=1) - 0.5 * self.pos

    def step(self, dt):
        self.vel += dt * self.forces()
        self.pos += dt * self.vel


def particles_loss(x):
    s = Particles(x, x[::-1] * 0.1, 0.3)
    for _ in range(4):
        s.step(0.05)
    return np.sum(s.pos ** 2) + np.sum(s.vel ** 2)


@pytest.mark.parametrize("f", [pendulum_loss, pendulum_helper_loss, particles_loss])
def test_simulation_objects(f):
    check_every_form(f)


# -- accumulators, counters, class attributes, inheritance -----------------------------

class Accumulator:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def add(self, v):
        self.total = self.total + v
        self.count += 1

    def mean(self):
        return self.total / self.count


def accumulated(x):
    acc = Accumulator()  # built from nothing differentiable, then given such values
    for i in range(4):
        acc.add(x[i] ** 2 * (i + 1))
    return acc.mean() * np.cos(acc.total)


class Base:
    scale = 2.0  # read through the object until it sets its own
    calls = 0

    def __init__(self, w):
        self.w = w

    def f(self, x):
        self.calls += 1
        return self.scale * np.sum(self.w * x)


class Child(Base):
    def __init__(self, w, b):
        super().__init__(w)
        self.b = b

    @property
    def bias(self):
        return self.b ** 2

    def f(self, x):
        return super().f(x) + self.bias

    @staticmethod
    def squash(v):
        return np.tanh(v)

    @classmethod
    def offset(cls, v):
        return v + cls.scale


def inherited(x):
    c = Child(x[:2], x[2])
    y = c.f(x[1:3]) + c.f(x[2:])
    return c.squash(y * c.calls) + c.offset(c.b) * c.scale


def attribute_set_later(x):
    m = Accumulator()
    m.w = x[1:] * 2.0  # an attribute the class does not set
    m.total = np.sum(m.w ** 2)
    return m.total + getattr(m, "w")[0]


@pytest.mark.parametrize("f", [accumulated, inherited, attribute_set_later])
def test_state_and_inheritance(f):
    check_every_form(f)


# -- callables, nested objects, objects in expressions, in loops -----------------------

class Spring:
    def __init__(self, k):
        self.k = k

    def __call__(self, d):
        return 0.5 * self.k * d ** 2


def springs_in_a_loop(x):
    e = 0.0
    for i in range(3):
        s = Spring(x[i] ** 2 + 0.5)  # a new object each trip
        e = e + s(x[i + 1] - x[i])
    return e


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, h):
        return np.tanh(self.W * h + self.b)


class Net:
    def __init__(self, W1, b1, W2):
        self.hidden = Dense(W1, b1)  # an object holding an object
        self.W2 = W2

    def loss(self, h):
        return np.sum(self.W2 * self.hidden(h)) ** 2


def nested_objects(x):
    net = Net(x[0], x[1], x[2])
    return net.loss(x) + net.hidden.W * 0.1


def object_in_an_expression(x):
    return Net(x[0], x[1], x[2]).loss(x[1:]) + Spring(x[3])(x[0]) * Spring(2.0).k


def isinstance_branch(x):
    s = Spring(x[0])
    if isinstance(s, Spring) and s is not None:
        return s(x[1]) + x[2]
    return x[3]


@pytest.mark.parametrize("f", [springs_in_a_loop, nested_objects, object_in_an_expression,
                               isinstance_branch])
def test_callables_and_nesting(f):
    check_every_form(f)


def float_state(a, b):
    """The pendulum with Python-float arguments: the same gradients as an array's."""
    pend = Pendulum(a + 1.0, b ** 2)
    return pend.run(8, 0.05) ** 2


def test_python_float_arguments():
    check_grads(float_state, (0.7, 0.3), order=2, wrt=[0, 1])
    g = sg.grad(float_state, wrt=(0, 1))(0.7, 0.3)
    assert all(isinstance(v, float) or np.ndim(v) == 0 for v in g)


def test_generated_code_names_the_attributes():
    source = sg.adjoint_source(pendulum_loss)
    assert "pend_theta" in source and "pend_omega" in source
    assert "# grad of: self.omega = self.omega + dt * a" in source


# -- lists of objects, known when compiling ----------------------------------------------

class Layer:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, h):
        return np.tanh(self.W * h + self.b)


class MLP:
    def __init__(self, p):
        self.layers = [Layer(p[0], p[1]), Layer(p[2], p[3])]

    def __call__(self, h):
        for layer in self.layers:
            h = layer(h)
        return h

    def decay(self):
        return sum(np.sum(l.W ** 2) for l in self.layers)


def mlp_of_a_list(x):
    m = MLP(x)
    return np.sum(m(np.array([0.5, -1.0])) ** 2) + 0.1 * m.decay() \
        + len(m.layers) * m.layers[-1].b


def through_layers(layers, h):  # the list passed to a helper
    for i, layer in enumerate(layers):
        h = layer(h) * (i + 1)
    return h


def list_to_a_helper(x):
    layers = [Layer(x[0], x[1]), Layer(x[2], 0.5)]
    return np.sum(through_layers(layers, np.array([0.3, 0.7]))) \
        + sum(l.b for l in reversed(layers)) + [l.W for l in layers][1]


def springs_listed(x):
    springs = [Spring(x[0]), Spring(x[1] ** 2), Spring(2.0)]
    e = 0.0
    for i, s in enumerate(springs):
        e = e + s(x[i + 1] - x[i])
    return e


@pytest.mark.parametrize("f", [mlp_of_a_list, list_to_a_helper, springs_listed])
def test_lists_of_objects(f):
    check_every_form(f)


def appended(x):
    springs = [Spring(x[0]), Spring(x[1])]
    springs.append(Spring(x[2]))
    return springs[0](x[1])


def by_a_runtime_index(x, i=1):
    springs = [Spring(x[0]), Spring(x[1])]
    return springs[i](x[2])


def test_a_list_display_of_objects():
    """(Refused before lists of objects were known when compiling.)"""
    check_grads(in_a_list, (X,), order=2)


def test_lists_of_objects_changed_or_indexed_when_running_are_refused():
    for f in (appended, by_a_runtime_index):
        with pytest.raises(sg.CompileError, match="creating a `Spring`"):
            sg.grad(f)(X)


# -- on a tape, the object is the user's after the block --------------------------------

def test_object_built_in_a_tape_block_is_there_after_it():
    w = np.array([1.0, 2.0, 3.0])
    x = np.array([0.3, 0.2, 0.5])
    with sg.GradientTape() as tape:
        tape.watch(w)
        acc = Accumulator()
        for i in range(3):
            acc.add(np.sum(w * x) * i)
        y = acc.total ** 2
    np.testing.assert_allclose(tape.gradient(y, w), 2 * 3 * np.sum(w * x) * 3 * x)
    assert type(acc) is Accumulator and acc.count == 3
    assert acc.total == pytest.approx(3 * np.sum(w * x))
    assert acc.mean() == pytest.approx(np.sum(w * x))


@sg.function
def taped_in_function(w):
    with sg.GradientTape() as tape:
        tape.watch(w)
        net = Net(w[0], w[1], w[2])
        y = net.loss(w)
    return tape.gradient(y, w), net.hidden.W


def test_object_built_in_a_tape_block_in_sg_function():
    w = X[:3].copy()
    g, W = taped_in_function(w)
    np.testing.assert_allclose(g, sg.grad(lambda v: Net(v[0], v[1], v[2]).loss(v))(w),
                               rtol=1e-12)
    assert W == w[0]


# -- another name for an attribute's array, made by a method: writes wait for it -------

class Holder:
    def __init__(self, x):
        self.x = x

    def alias(self):
        self.b = self.a

    def view(self):
        self.b = self.a[1:]

    @property
    def a_value(self):
        return self.a


def alias_of(s):
    s.b = s.a


def write_through_method_alias(x):  # (fuzzer 912:64: gave 1 for 2, the write lost)
    s = Holder(x)
    s.a = s.x - 1.2
    s.alias()
    s.b[0] += np.sum(s.a)  # writes into s.a's array too
    return np.sum(s.a)


def update_through_method_alias(x):
    s = Holder(x)
    s.a = s.x - 1.2
    s.alias()
    s.b += np.sum(s.a)
    return np.sum(s.a)


def write_through_method_view(x):
    s = Holder(x)
    s.a = s.x - 1.2
    s.view()
    s.b[0] += np.sum(s.a)
    return np.sum(s.a * s.a)


def write_through_property_alias(x):
    s = Holder(x)
    s.a = s.x - 1.2
    s.b = s.a_value
    s.b[0] += np.sum(s.a)
    return np.sum(s.a)


def write_through_helper_alias(x):
    s = Holder(x)
    s.a = s.x - 1.2
    alias_of(s)
    s.b[0] += np.sum(s.a)
    return np.sum(s.a)


@pytest.mark.parametrize("f", [write_through_method_alias, update_through_method_alias,
                               write_through_method_view, write_through_property_alias,
                               write_through_helper_alias])
def test_writes_through_names_a_method_makes(f):
    """Right, or refused as the same code on locals is; never the write's effect lost."""
    try:
        g = sg.grad(f)(X)
    except sg.CompileError as e:
        assert "may share" in str(e) or "may be shared" in str(e)
        return
    eps = 1e-6
    fd = np.array([(f(X + eps * e) - f(X - eps * e)) / (2 * eps) for e in np.eye(len(X))])
    np.testing.assert_allclose(g, fd, rtol=1e-6)


# -- what is refused, naming the line --------------------------------------------------

def passed_to_print(x):
    s = Spring(x[0])
    print(s)
    return s(x[1])


def returned(x):
    return Spring(x[0])


def in_a_list(x):
    springs = [Spring(x[0]), Spring(x[1])]
    return springs[0](x[2])


def bound_twice(x):
    s = Spring(x[0])
    s = Spring(x[1])
    return s(x[2])


def never_set(x):
    s = Spring(x[0])
    return s(x[1]) + s.damping


class Dynamic:
    def __init__(self, w):
        self.w = w

    def __getattr__(self, name):
        return 0.0


def dynamic(x):
    d = Dynamic(x[0])
    return d.w * x[1]


def method_overwritten(x):
    s = Spring(x[0])
    s.__call__ = x[1]
    return s.k


@pytest.mark.parametrize("f, words", [
    (passed_to_print, ["creating a `Spring`", "passed to code srcgrad does not compile"]),
    (returned, ["creating a `Spring`", "not supported"]),
    (bound_twice, ["creating a `Spring`", "bound to other values"]),
    (never_set, ["`s.damping` is read, but no statement sets it"]),
    (dynamic, ["`Dynamic` defines `__getattr__`"]),
    (method_overwritten, ["`s.__call__`", "method or property"]),
])
def test_refused_naming_the_line(f, words):
    with pytest.raises(sg.CompileError) as e:
        sg.grad(f)(X)
    message = str(e.value)
    assert "test_objects_built.py:" in message
    for w in words:
        assert w in message


class Closing:
    def __init__(self, x):
        self.x = x

    def part(self):
        def inner(c):
            return np.sum(c) + np.sum(self.x)  # a closure over the object
        self.g = inner(self.x * 2.0)

    def scaled(self):
        f = lambda v: self.x * v  # noqa: E731  (a lambda is a def to the compiler)
        return np.sum(f(3.0))


def closure_over_the_object(x):  # (fuzzer 35211:207: NameError in the generated code)
    o = Closing(x)
    o.part()
    return o.g


def lambda_over_the_object(x):
    return Closing(x).scaled()


def test_functions_defined_over_an_object():
    """(They crashed: NameError in the generated code, the object never being a value;
    then refused; now the def, only called, reads the attributes' locals:
    tests/test_objects_closures.py.)"""
    for f in (closure_over_the_object, lambda_over_the_object):
        check_grads(f, (X.copy(),), order=2)
        assert sg.value_and_grad(f)(X.copy())[0] == pytest.approx(f(X.copy()))
