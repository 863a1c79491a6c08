"""Public functional API (placeholder until the compiler lands)."""


def grad(f, wrt=0, *, preserve_result=False):
    raise NotImplementedError


def value_and_grad(f, wrt=0):
    raise NotImplementedError


def adjoint_source(f, wrt=0):
    raise NotImplementedError


def function(f):
    raise NotImplementedError
