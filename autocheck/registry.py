"""Registries of named parts: perturbations, model forms, lexicons, dataset readers, executors,
validation checks, output kinds, tasks, case sources and language profiles. Each kind has one registry;
autocheck registers its own parts in code, and a third-party package adds its own, without editing
autocheck, through the entry-point group ``autocheck.<kind>`` in its packaging metadata, e.g. in its
``pyproject.toml``::

    [project.entry-points."autocheck.perturbations"]
    shout = "my_plugin:shout"

Entry points are read the first time a registry is asked for a name it does not hold (or for its names)
and a plug-in is imported only when its part is asked for, so ``import autocheck`` stays cheap; a plug-in
that fails to load is an error naming its package.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from .store import InputError

T = TypeVar("T")

KINDS = (
    "perturbations",
    "models",
    "lexicons",
    "datasets",
    "executors",
    "checks",
    "outputs",
    "tasks",
    "sources",
    "languages",
)


class Registry(Generic[T]):
    """Named parts of one kind; ``what`` names the kind in errors ("perturbation")."""

    def __init__(self, kind: str, what: str):
        if kind not in KINDS:
            raise ValueError(f"unknown registry kind {kind!r} (one of {', '.join(KINDS)})")
        self.kind, self.what = kind, what
        self.group = f"autocheck.{kind}"
        self._parts: dict[str, T] = {}
        self._origins: dict[str, str] = {}  # name -> "autocheck", or the plug-in package that added it
        self._entry_points: dict[str, EntryPoint] | None = None

    def register(self, name: str, part: T | None = None) -> Callable[[T], T] | T:
        """``register(name, part)``, or ``@register(name)`` as a decorator."""
        if part is None:
            return lambda found: self._add(name, found)
        return self._add(name, part)

    def _add(self, name: str, part: T) -> T:
        if name in self._parts and self._parts[name] is not part:
            raise ValueError(f"a {self.what} named {name!r} is registered already")
        self._parts[name] = part
        self._origins.setdefault(name, "autocheck")
        return part

    def get(self, name: str) -> T:
        """The part named ``name``: autocheck's own, else a plug-in's (loaded now)."""
        if name in self._parts:
            return self._parts[name]
        point = self._plugins().get(name)
        if point is None:
            raise InputError(
                f"no {self.what} named {name!r} (known: {', '.join(self.names())}; a plug-in adds one "
                f"through the entry-point group {self.group!r})"
            )
        try:
            part: T = point.load()  # a plug-in's part is taken as registered (entry points are untyped)
        except Exception as error:  # a broken plug-in names itself, whatever it raised
            raise InputError(
                f"plug-in {_package(point)}: the {self.what} {name!r} ({point.value}) could not be loaded: "
                f"{type(error).__name__}: {error}"
            ) from error
        self._parts[name] = part
        self._origins[name] = _package(point)
        return part

    __getitem__ = get

    def __contains__(self, name: object) -> bool:
        return name in self._parts or name in self._plugins()

    def names(self) -> list[str]:
        """Every name, plug-ins' included (none is loaded to list them)."""
        return sorted({*self._parts, *self._plugins()})

    def origins(self) -> dict[str, str]:
        """Every name and where its part comes from: ``autocheck``, or the package of the plug-in that adds
        it (none is loaded to say so)."""
        found = {name: _package(point) for name, point in self._plugins().items()}
        return dict(sorted({**found, **self._origins}.items()))

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def _plugins(self) -> dict[str, EntryPoint]:
        """The entry points of this kind's group, read once; a name autocheck has stays autocheck's."""
        if self._entry_points is None:
            self._entry_points = {p.name: p for p in entry_points(group=self.group)}
        return {name: p for name, p in self._entry_points.items() if name not in self._parts}


def _package(point: EntryPoint) -> str:
    """The distribution that declares an entry point (its module when that is not known)."""
    return point.dist.name if point.dist else point.value.partition(":")[0]


def keywords(part: Callable[..., Any], given: Collection[str] = ()) -> list[str]:
    """The options a part called with keyword options takes (its keyword-only parameters but those
    autocheck ``given`` itself, such as a perturbation's ``language``)."""
    sig = inspect.signature(part)
    kw_only = inspect.Parameter.KEYWORD_ONLY
    return [p.name for p in sig.parameters.values() if p.kind is kw_only and p.name not in given]


def check_keywords(
    part: Callable[..., Any], options: Mapping[str, Any], what: str, given: Collection[str] = ()
) -> None:
    """The one check of the options of a part called with keyword options (a perturbation, a case source),
    wherever they are given: an option it does not take (one taking ``**options`` takes any) or a required
    one left out is an error that begins with ``what`` (where, and which part)."""
    parameters = inspect.signature(part).parameters.values()
    known = keywords(part, given)
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
    unknown = [] if takes_any else sorted(set(options) - set(known))
    if unknown:
        raise InputError(
            f"{what} has no option {', '.join(map(repr, unknown))}; its options: {', '.join(known)}"
        )
    missing = [
        p.name
        for p in parameters
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty
        and p.name not in options and p.name not in given
    ]  # fmt: skip
    if missing:
        raise InputError(f"{what} needs option {', '.join(map(repr, missing))}")
