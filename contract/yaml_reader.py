"""YAML text -> plain data (dict, list, str, int, ...), within fixed limits of time and memory.

libyaml (PyYAML's ``CSafeLoader``) parses and composes the node graph; this module builds
the values itself, with YAML 1.1 meaning as PyYAML's safe loader gives it, and:

- a key given twice in one mapping is an error (not "the last one wins");
- a mapping key must be a scalar (``? [a, b]`` is an error); keys become strings
  (``{5: x}`` -> ``{"5": x}``), as JSON Schema sees them;
- only the YAML 1.1 scalar tags and plain sequences and mappings are accepted
  (no ``!!set``, ``!!omap``, ``!!python/...`` or application tags);
- an alias may not refer to a collection that contains it (``&r [*r]``);
- ``MAX_ALIASES`` alias uses of collections, ``MAX_VALUES`` values counted through every
  alias and merge (an alias "bomb" of 1 KB stops here, not at 10^9 nodes), nesting at most
  ``MAX_DEPTH`` levels; the caller bounds the text (the loader's file size limit), which
  bounds the parse.

Plain integers in decimal or ``0x`` hex (the bulk of a vector) take a fast path; every
other plain scalar goes through PyYAML's own resolver and constructors.
"""
from __future__ import annotations

import gc
import re

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

MAX_ALIASES = 256  # alias (and merge) uses of a collection per document
MAX_VALUES = 500_000  # values (scalars and collections) per document, counted through aliases
MAX_DEPTH = 32  # nesting of collections

_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = frozenset(_TAG + name for name in ("null", "bool", "int", "float", "str", "binary", "timestamp"))
_SEQ, _MAP, _STR, _MERGE = _TAG + "seq", _TAG + "map", _TAG + "str", _TAG + "merge"
_PLAIN = "pto-avs:plain"  # what the composer records for an untagged plain scalar (resolved here)
_SIMPLE_INT = re.compile(r"(?:0|[1-9][0-9]*|0x[0-9a-fA-F]+)\Z").match  # same value in YAML 1.1 and int(_, 0)
_JSON_TYPES = (str, int, bool, type(None), dict, list)
# First characters for which YAML 1.1 may read a plain scalar as something other than a string
# (a None key would make every character one: then there is no shortcut).
_RESOLVED_FIRST = (frozenset(yaml.resolver.Resolver.yaml_implicit_resolvers)
                   if None not in yaml.resolver.Resolver.yaml_implicit_resolvers else None)

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present


class YamlProblem(Exception):
    """The text is not a vector-file YAML document; ``str()`` is the readable problem,
    with its line and column where known."""

    def __init__(self, problem: str, mark=None):
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        super().__init__(where + problem)


class _Composer(_Loader):
    """libyaml's parser and composer; plain scalars keep a marker tag, resolved by ``_Builder``
    only when they are not simple integers."""

    def resolve(self, kind, value, implicit):
        if kind is ScalarNode and implicit[0]:
            return _PLAIN
        return super().resolve(kind, value, implicit)


class _Builder:
    """Values from the composed node graph, counting values and alias uses."""

    def __init__(self, loader: _Composer):
        self.loader = loader
        self.done: dict[int, tuple] = {}  # id(collection node) -> (value, values it holds)
        self.active: set[int] = set()  # collections being built (an alias to one is recursive)
        self.values = 0
        self.aliases = 0
        self.json_only = True  # every value is str, int, bool, None, dict or list

    def scalar(self, node):
        tag, text = node.tag, node.value
        if tag is _PLAIN:
            if _SIMPLE_INT(text):
                return int(text, 0)
            if _RESOLVED_FIRST is not None and text[:1] not in _RESOLVED_FIRST:
                return text
            tag = yaml.resolver.Resolver.resolve(self.loader, ScalarNode, text, (True, False))
        if tag == _STR:
            return text
        if tag not in _SCALAR_TAGS:
            raise YamlProblem(f"tag {tag!r} is not allowed in a vector file", node.start_mark)
        value = self.loader.yaml_constructors[tag](self.loader, node)
        if not isinstance(value, _JSON_TYPES):
            self.json_only = False
        return value

    def build(self, node, depth: int = 0):
        if node.__class__ is ScalarNode:
            self._count(1, node)
            return self.scalar(node)
        key = id(node)
        seen = self.done.get(key)
        if seen is not None:
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                raise YamlProblem(f"more than {MAX_ALIASES} aliases", node.start_mark)
            self._count(seen[1], node)
            return seen[0]
        if key in self.active:
            raise YamlProblem("an alias refers to a collection that contains it (recursive alias)", node.start_mark)
        if depth >= MAX_DEPTH:
            raise YamlProblem(f"collections nested deeper than {MAX_DEPTH} levels", node.start_mark)
        self.active.add(key)
        start = self.values
        self._count(1, node)
        if node.__class__ is SequenceNode and node.tag == _SEQ:
            value = self._sequence(node, depth + 1)
        elif node.__class__ is MappingNode and node.tag == _MAP:
            value = self._mapping(node, depth + 1)
        else:
            raise YamlProblem(f"tag {node.tag!r} is not allowed in a vector file", node.start_mark)
        self.active.discard(key)
        self.done[key] = (value, self.values - start)
        return value

    def _count(self, count: int, node) -> None:
        self.values += count
        if self.values > MAX_VALUES:
            raise YamlProblem(f"more than {MAX_VALUES} values (counting every alias and merge)", node.start_mark)

    def _sequence(self, node, depth: int) -> list:
        out = []
        append = out.append
        scalars = 0
        for child in node.value:
            if child.__class__ is ScalarNode:
                scalars += 1
                text = child.value
                append(int(text, 0) if child.tag is _PLAIN and _SIMPLE_INT(text) else self.scalar(child))
            else:
                append(self.build(child, depth))
        self._count(scalars, node)
        return out

    def _mapping(self, node, depth: int) -> dict:
        out: dict = {}
        merges = []
        for key_node, value_node in node.value:
            if key_node.__class__ is not ScalarNode:
                raise YamlProblem("a mapping key must be a scalar, not a sequence or mapping", key_node.start_mark)
            if key_node.tag is _PLAIN and key_node.value == "<<":
                merges.append(value_node)
                continue
            key = self.scalar(key_node)
            key = key if type(key) is str else str(key)
            if key in out:
                raise YamlProblem(f"duplicate key {key!r}", key_node.start_mark)
            self._count(1, key_node)
            out[key] = self.build(value_node, depth)
        for merge in merges:  # merge keys (<<): explicit keys win, then earlier merged mappings
            sources = merge.value if merge.__class__ is SequenceNode else [merge]
            for source in sources:
                merged = self.build(source, depth)
                if not isinstance(merged, dict):
                    raise YamlProblem("a merge key (<<) takes a mapping or a list of mappings", source.start_mark)
                for key, value in merged.items():
                    out.setdefault(key, value)
        return out


def read(text: str):
    """The single YAML document of ``text`` as plain data, and whether every value is of a
    JSON type. Raises ``YamlProblem``."""
    collecting = gc.isenabled()
    gc.disable()  # many short-lived nodes: the cycle collector would rescan them again and again
    loader = _Composer(text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            raise YamlProblem(exc.problem or exc.context or "malformed YAML",
                              exc.problem_mark or exc.context_mark) from None
        except yaml.YAMLError as exc:
            raise YamlProblem(str(exc)) from None
        if root is None:
            return None, True
        builder = _Builder(loader)
        try:
            value = builder.build(root)
        except yaml.MarkedYAMLError as exc:  # a scalar constructor's complaint (a bad !!binary, say)
            raise YamlProblem(exc.problem or exc.context or "malformed YAML",
                              exc.problem_mark or exc.context_mark) from None
        except (ValueError, TypeError, OverflowError) as exc:
            raise YamlProblem(f"cannot read a value: {exc}") from None
        return value, builder.json_only
    finally:
        loader.dispose()
        if collecting:
            gc.enable()
