"""The error classes users see. Few of them, each with a remedy in its message."""


class CompileError(Exception):
    """srcgrad cannot differentiate this code.

    The message names the construct, the file and the line, e.g.
    ``yield expression is not supported (model.py:12)``.
    """

    def __init__(self, message, filename=None, lineno=None, remedy=None):
        self.construct = message
        self.filename = filename
        self.lineno = lineno
        self.remedy = remedy
        text = message
        if filename is not None:
            where = filename if lineno is None else f"{filename}:{lineno}"
            text = f"{text} ({where})"
        if remedy:
            text = f"{text}. {remedy[0].upper()}{remedy[1:]}"
        super().__init__(text)


class NotDifferentiableError(CompileError, NotImplementedError):
    """A case a derivative rule does not model, found when the gradient runs (the
    values decide it: a complex input where a rule models real ones, a rank-deficient
    matrix). A ``CompileError`` like every refusal; also a ``NotImplementedError``."""


class SourceUnavailableError(CompileError):
    """The source code of a function or tape block cannot be found.

    Raised for code typed at a bare ``python`` prompt or run with ``exec`` of
    a string: put the code in a file or use ``@srcgrad.function``.
    """
