"""A config given as a dict, written as TOML text for the same reader as files."""

import json
import math
from typing import Any


def value(item: Any) -> str:
    """One value in TOML: tables and arrays inline, so any nesting fits on one line."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if math.isnan(item):
            return "nan"
        if math.isinf(item):
            return "inf" if item > 0 else "-inf"
        return repr(float(item))  # the shortest text that reads back as the same double (numpy floats too)
    if isinstance(item, str):
        # A TOML basic string: JSON's escapes, with characters past U+FFFF as they are (JSON
        # would write surrogate pairs, which TOML refuses) and DEL escaped.
        return json.dumps(item, ensure_ascii=False).replace("\x7f", "\\u007F")
    if isinstance(item, dict):
        return "{" + ", ".join(f"{key(k)} = {value(v)}" for k, v in item.items()) + "}"
    if isinstance(item, (list, tuple)):
        return "[" + ", ".join(value(v) for v in item) + "]"
    if hasattr(item, "tolist"):  # a numpy number or array
        return value(item.tolist())
    raise TypeError(f"a config value must be a number, string, bool, list or dict, not {type(item).__name__}")


def key(name: Any) -> str:
    if not isinstance(name, str):
        raise TypeError(f"a config key must be a string, not {type(name).__name__}")
    bare = name and all(c.isascii() and (c.isalnum() or c in "_-") for c in name)
    return name if bare else json.dumps(name)


def dumps(config: dict) -> str:
    """The document: one line a top-level key (a section is an inline table)."""
    return "".join(f"{key(k)} = {value(v)}\n" for k, v in config.items())
