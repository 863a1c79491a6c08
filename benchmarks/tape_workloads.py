"""Workload 7: the MLP training step written with ``sg.GradientTape``.

Written against SPEC section 1 (the tape API, issue 3). Until
``srcgrad.GradientTape`` exists the benchmark prints this row as
"n/a (tape API not implemented yet)" and never calls into this code.
The tape is used in a plain, undecorated function (SPEC 1, case 2), the way
a TensorFlow user writes a training step.
"""
from workloads import mlp_loss, scalar_recurrence

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


# TODO(issue 3, nested tapes): the second-order row ("second-order-tape") is a
# placeholder until nested tapes work. run.py prints it as "n/a: tape API not
# implemented yet" while ``sg.GradientTape`` is missing; once the tape exists
# it tries the function below and reports it, but never fails the run on it.
def nested_tape_second_derivative(a_value):
    a = sg.Variable(a_value)
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            s = scalar_recurrence(a)
        ds = inner.gradient(s, a)
    return outer.gradient(ds, a)
