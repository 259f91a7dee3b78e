"""The YAML text of the vector files: value markers and the writer every generator uses.

Marker types say how a value is written: ``Hex`` (an integer as ``0x..``), ``Flow`` (a list
on one line), ``FlowMap`` (a mapping on one line), ``Block`` (a string as a literal block).
``to_yaml(doc)`` writes a document with its keys in the order given, plain scalars where
they read back as the same string, JSON-quoted strings otherwise, and never wraps a line.

``pyyaml_text(doc)`` is the one other style: the five layout and pad files of
``legality_layout.py`` were first written through PyYAML (its quoting and its line
wrapping at 110 columns) and are kept byte for byte, so that family renders through it.
"""
from __future__ import annotations

import json
import re

import yaml


class Hex(int):
    """An integer written as 0x..."""


class Flow(list):
    """A list written on one line."""


class FlowMap(dict):
    """A mapping written on one line."""


class Block(str):
    """A string written as a literal block."""


_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 ._/()+-]*[A-Za-z0-9.)]|[A-Za-z]")
_RESERVED = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"}


def _inline(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Hex):
        return f"0x{int(value):X}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (Flow, list)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_inline(v)}" for k, v in value.items()) + "}"
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text)


def _mapping(d: dict, indent: int) -> list[str]:
    pad = " " * indent
    lines = []
    for key, value in d.items():
        if isinstance(value, Block):
            lines.append(f"{pad}{key}: |")
            lines += [f"{pad}  {line}" for line in value.splitlines()]
        elif isinstance(value, dict) and not isinstance(value, FlowMap):
            lines.append(f"{pad}{key}:")
            lines += _mapping(value, indent + 2)
        elif isinstance(value, list) and not isinstance(value, Flow):
            lines.append(f"{pad}{key}:")
            lines += _sequence(value, indent + 2)
        else:
            lines.append(f"{pad}{key}: {_inline(value)}")
    return lines


def _sequence(items: list, indent: int) -> list[str]:
    pad = " " * indent
    lines = []
    for item in items:
        if isinstance(item, dict) and not isinstance(item, FlowMap):
            sub = _mapping(item, indent + 2)
            lines.append(f"{pad}- {sub[0].lstrip()}")
            lines += sub[1:]
        else:
            lines.append(f"{pad}- {_inline(item)}")
    return lines


def to_yaml(doc: dict) -> str:
    return "\n".join(_mapping(doc, 0)) + "\n"


# --------------------------------------------------------------------------------------
# The PyYAML style of the legality_layout files


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True


def _hex(dumper, value):
    return dumper.represent_scalar("tag:yaml.org,2002:int", f"0x{int(value):X}")


def _str(dumper, value):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _list(dumper, value):
    flow = all(not isinstance(v, (dict, list)) for v in value) or \
        all(isinstance(v, list) and all(not isinstance(x, (dict, list)) for x in v) for v in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow and bool(value))


def _dict(dumper, value):
    flow = bool(value) and all(not isinstance(v, (dict, list)) for v in value.values()) and \
        all(isinstance(k, int) for k in value)
    return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=flow)


def _flow_map(dumper, value):
    return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=True)


_Dumper.add_representer(Hex, _hex)
_Dumper.add_representer(str, _str)
_Dumper.add_representer(list, _list)
_Dumper.add_representer(dict, _dict)
_Dumper.add_representer(FlowMap, _flow_map)


def pyyaml_text(doc: dict) -> str:
    """``doc`` in PyYAML's block style (wrapped at 110 columns), as the layout files are."""
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, width=110, allow_unicode=False)
