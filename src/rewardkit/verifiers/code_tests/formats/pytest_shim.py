"""The part of pytest that pytest-style tests (KodCode) use, as test code run in the harness's supervisor.

The supervisor has no pytest (a bare ``python3 -I -S``), so the tests' ``import pytest`` is bound to this
stand-in: ``raises`` (context manager and call form, ``match``), ``approx``, ``mark.parametrize`` (and
``pytest.param``), ``mark.skip``/``skipif``/``xfail``, other marks as no-ops, ``fixture`` (the file's own
fixtures, by name, generator fixtures torn down after the test), ``fail``, ``skip``, ``importorskip``, and
the ``tmp_path`` fixture. ``warns`` cannot see the program's warnings (they happen in its process) and
fails. ``__rk_pytest_run__`` runs one test function over its parameter sets: it passes when every set
passes (a skipped set passes, as in pytest's exit status). Everything is plain trusted code: the program's
values reach it as built-in data or opaque proxies, and its exceptions as the builtin of the same name (its
own exception classes are matched by name).
"""

SHIM = r"""
import re as __rk_re__
import itertools as __rk_itertools__


class __rk_Skipped__(Exception):
    pass


class __rk_Failed__(AssertionError):
    pass


def __rk_exc_matches__(exc, expected):
    if type(expected) is tuple:
        return any(__rk_exc_matches__(exc, item) for item in expected)
    if isinstance(expected, type):
        return isinstance(exc, expected)
    label = repr(expected)
    if type(expected).__name__ == "Remote" and label.startswith("<candidate ") and label.endswith(">"):
        name = label[len("<candidate "):-1]
        return type(exc).__name__ == "CandidateFailure" and str(exc).startswith("exception: " + name + ":")
    return False


class __rk_Raises__:
    def __init__(self, expected, match=None):
        self.expected, self.match, self.value, self.type = expected, match, None, None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            raise __rk_Failed__("DID NOT RAISE " + repr(self.expected))
        if not isinstance(value, Exception) or not __rk_exc_matches__(value, self.expected):
            return False
        if self.match is not None and not __rk_re__.search(self.match, str(value)):
            raise __rk_Failed__("the exception message does not match " + repr(self.match))
        self.value, self.type = value, kind
        return True

    def match(self, pattern):
        if not __rk_re__.search(pattern, str(self.value)):
            raise __rk_Failed__("the exception message does not match " + repr(pattern))
        return True


class __rk_Approx__:
    __hash__ = None

    def __init__(self, expected, rel=None, abs=None, nan_ok=False):
        self.expected, self.rel, self.abs, self.nan_ok = expected, rel, abs, nan_ok

    def __eq__(self, actual):
        return self._close(actual, self.expected)

    def __ne__(self, actual):
        return not self._close(actual, self.expected)

    def __repr__(self):
        return "approx(" + repr(self.expected) + ")"

    def _close(self, actual, expected):
        if type(expected) in (list, tuple):
            return type(actual) in (list, tuple) and len(actual) == len(expected) and all(
                self._close(a, e) for a, e in zip(actual, expected))
        if type(expected) is dict:
            return type(actual) is dict and actual.keys() == expected.keys() and all(
                self._close(actual[k], expected[k]) for k in expected)
        numbers = (int, float, complex)
        if type(expected) not in numbers or type(actual) not in numbers:
            return actual == expected
        if actual == expected:
            return True
        if expected != expected:
            return self.nan_ok and actual != actual
        if expected in (float("inf"), float("-inf")):
            return False
        rel = 1e-6 if self.rel is None else self.rel
        absolute = 1e-12 if self.abs is None else self.abs
        if self.rel is None and self.abs is not None:
            rel = 0.0
        return abs(actual - expected) <= max(rel * abs(expected), absolute)


class __rk_Param__:
    def __init__(self, values, marks=(), id=None):
        self.values = values
        self.marks = list(marks) if isinstance(marks, (list, tuple)) else [marks]


class __rk_Mark__:
    def __init__(self, name, args=(), kwargs=None):
        self.name, self.args, self.kwargs = name, args, kwargs or {}

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and (callable(args[0]) or isinstance(args[0], type)):
            target = args[0]
            marks = list(getattr(target, "__rk_marks__", []))
            marks.append(self)
            target.__rk_marks__ = marks
            return target
        return __rk_Mark__(self.name, args, kwargs)


class __rk_MarkFactory__:
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return __rk_Mark__(name)


class __rk_Pytest__:
    mark = __rk_MarkFactory__()
    approx = __rk_Approx__

    @staticmethod
    def raises(expected, *args, match=None, **kwargs):
        manager = __rk_Raises__(expected, match)
        if not args:
            return manager
        with manager:
            args[0](*args[1:], **kwargs)
        return manager

    @staticmethod
    def param(*values, marks=(), id=None):
        return __rk_Param__(values, marks, id)

    @staticmethod
    def fixture(function=None, **options):
        def mark(target):
            target.__rk_fixture__ = True
            return target
        return mark(function) if callable(function) else mark

    @staticmethod
    def fail(reason="", pytrace=True):
        raise __rk_Failed__(reason)

    @staticmethod
    def skip(reason="", allow_module_level=False):
        raise __rk_Skipped__(reason)

    @staticmethod
    def warns(*args, **kwargs):
        raise __rk_Failed__("pytest.warns cannot see the program's warnings")

    deprecated_call = warns

    @staticmethod
    def importorskip(name, *args, **kwargs):
        try:
            return __import__(name)
        except ImportError:
            raise __rk_Skipped__("no module " + name) from None

    @staticmethod
    def main(*args, **kwargs):
        return 0


__rk_pytest__ = __rk_Pytest__()


def __rk_marks_of__(function, owner):
    return list(getattr(owner, "__rk_marks__", [])) + list(getattr(function, "__rk_marks__", []))


def __rk_parameter_sets__(marks):
    axes = []
    for mark in reversed(marks):
        if mark.name != "parametrize" or len(mark.args) < 2:
            continue
        names = mark.args[0]
        names = [n.strip() for n in names.split(",") if n.strip()] if isinstance(names, str) else list(names)
        axis = []
        for value in mark.args[1]:
            extra = []
            if isinstance(value, __rk_Param__):
                extra, value = value.marks, value.values
                value = value if len(names) > 1 else value[0]
            values = list(value) if len(names) > 1 else [value]
            axis.append((dict(zip(names, values)), extra))
        axes.append(axis)
    for combination in __rk_itertools__.product(*axes):
        params, extra = {}, []
        for chosen, more in combination:
            params.update(chosen)
            extra.extend(more)
        yield params, extra


def __rk_fixture_value__(name, cache, teardowns, namespace):
    if name in cache:
        return cache[name]
    if name == "tmp_path":
        import pathlib, tempfile
        value = pathlib.Path(tempfile.mkdtemp(prefix="rk_tmp_"))
    else:
        function = namespace.get(name)
        if not getattr(function, "__rk_fixture__", False):
            raise __rk_Failed__("fixture " + repr(name) + " is not available")
        value = function(**__rk_arguments__(function, {}, cache, teardowns, namespace))
        if type(value).__name__ == "generator":
            generator, value = value, next(value)
            teardowns.append(generator)
    cache[name] = value
    return value


def __rk_arguments__(function, params, cache, teardowns, namespace):
    code = getattr(function, "__code__", None)
    if code is None:
        return dict(params)
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    if names and names[0] == "self" and hasattr(function, "__self__"):
        names = names[1:]
    arguments = {}
    for name in names:
        if name == "self":
            continue
        arguments[name] = params[name] if name in params else __rk_fixture_value__(name, cache, teardowns, namespace)
    return arguments


def __rk_pytest_run__(function, owner=None):
    namespace = globals()
    marks = __rk_marks_of__(function, owner)
    for params, extra in __rk_parameter_sets__(marks):
        every = marks + extra
        if any(m.name == "skip" or (m.name == "skipif" and m.args and m.args[0]) for m in every):
            continue
        xfail = any(m.name == "xfail" for m in every)
        cache, teardowns = {}, []
        try:
            target = function
            if owner is not None:
                instance = owner()
                if hasattr(instance, "setup_method"):
                    instance.setup_method(function)
                target = getattr(instance, function.__name__)
            target(**__rk_arguments__(target, params, cache, teardowns, namespace))
        except __rk_Skipped__:
            continue
        except Exception:
            if not xfail:
                return False
        finally:
            for generator in reversed(teardowns):
                try:
                    next(generator)
                except StopIteration:
                    pass
    return True
"""
