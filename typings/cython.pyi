# The part of Cython's pure-Python mode that Coven uses, typed for mypy (the top-level `cython`
# module has no py.typed marker, and its own hints make every decorated function Any).
from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])
_T = TypeVar("_T", bound=type)

compiled: bool

# C types: used only inside `locals`, `declare` and `typedef`, or indexed into array types
int: Any
uint: Any
longlong: Any
ulonglong: Any
double: Any
bint: Any
const: Any

def locals(**types: Any) -> Callable[[_F], _F]: ...
def typedef(type: Any, name: str | None = None) -> Any: ...
def declare(type: Any = ..., value: Any = ..., visibility: str = ..., **types: Any) -> Any: ...
def cclass(cls: _T) -> _T: ...
def final(cls: _T) -> _T: ...
