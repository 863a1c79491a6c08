"""The workloads written with ``sg.GradientTape`` (SPEC section 1).

The tape is used in plain, undecorated functions (SPEC 1, case 2), the way
a TensorFlow user writes them: the MLP training step, a second derivative
with nested tapes, and a full Jacobian; the training step also inside
``@sg.function`` (SPEC 1, case 1).
"""
import numpy as np
from workloads import chain_energy, mlp_loss, scalar_recurrence, tanh_net

import srcgrad as sg


class TwoLayerMLP:
    def __init__(self, W1, b1, W2, b2):
        self.W1 = sg.Variable(W1, name="W1")
        self.b1 = sg.Variable(b1, name="b1")
        self.W2 = sg.Variable(W2, name="W2")
        self.b2 = sg.Variable(b2, name="b2")
        self.variables = [self.W1, self.b1, self.W2, self.b2]


def tape_gradients(model, X, labels):
    with sg.GradientTape() as tape:
        loss = mlp_loss(model.W1, model.b1, model.W2, model.b2, X, labels)
    return loss, tape.gradient(loss, model.variables)


def train_step(model, X, labels, learning_rate):
    loss, grads = tape_gradients(model, X, labels)
    for variable, g in zip(model.variables, grads):
        variable.assign_sub(learning_rate * g)
    return loss


@sg.function
def tape_gradients_function(model, X, labels):
    with sg.GradientTape() as tape:
        loss = mlp_loss(model.W1, model.b1, model.W2, model.b2, X, labels)
    return loss, tape.gradient(loss, model.variables)


@sg.function
def train_step_function(model, X, labels, learning_rate):
    """``train_step`` in ``@sg.function`` (SPEC 1, case 1), as a TensorFlow user writes it."""
    with sg.GradientTape() as tape:
        loss = mlp_loss(model.W1, model.b1, model.W2, model.b2, X, labels)
    grads = tape.gradient(loss, model.variables)
    for variable, g in zip(model.variables, grads):
        variable.assign_sub(learning_rate * g)
    return loss


def nested_tape_second_derivative(a_value):
    a = sg.Variable(a_value)
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            s = scalar_recurrence(a)
        ds = inner.gradient(s, a)
    return outer.gradient(ds, a)


def tape_jacobian(W1, W2, x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = tanh_net(W1, W2, x)
    return tape.jacobian(y, x)


def tape_jacobian_loop(W1, W2, x):
    """The Jacobian row by row: what ``tape.jacobian`` saves a user from writing."""
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tanh_net(W1, W2, x)
    return np.stack([tape.gradient(y, x, output_gradients=e) for e in np.eye(y.size)])


def nested_tape_hvp(x, v):
    """The Hessian-vector product as TensorFlow users write it: the inner gradient dotted
    with ``v``, differentiated by the outer tape."""
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            y = chain_energy(x)
        g = inner.gradient(y, x)
        gv = np.sum(g * v)
    return outer.gradient(gv, x)
