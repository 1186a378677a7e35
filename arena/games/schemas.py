"""JSON Schemas of the observations, made from the games' typed models.

`observation_schema(game_id, version)` turns a game's `ObservationModel` into the JSON
Schema (draft 2020-12) of its version-1 observation or of its protocol-2 envelope;
``scripts/gen_schemas.py`` writes them to ``protocol/games/`` and a test fails when a
written file is not what the models give. So the schemas are never edited by hand:
change a model (its field types, its `Field` texts) and regenerate.

The translation covers what the models use: ``bool``, ``int``, ``float``, ``str``,
``None``, ``Literal[...]`` (an ``enum``), ``list[X]``, ``X | None`` (a ``type`` list
for plain scalars, else ``oneOf``), TypedDicts (closed objects, every key required,
the class docstring as description) and ``Annotated`` with `Field` (keywords and the
description) and `Named` (a ``$defs`` entry).
"""

from __future__ import annotations

import inspect
import json
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from arena.games.observation import ONE_SEAT, Field, Named, ObservationModel, model

#: Where the schemas say they live (their ``$id``), and their dialect.
BASE_URL = "https://arena.example/protocol/games/"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: The protocol versions a schema is made for, and its file name's tail.
SUFFIXES = {1: "observation.schema.json", 2: "observation.v2.schema.json"}
_SCALARS: dict[type, str] = {bool: "boolean", int: "integer", float: "number", str: "string"}


def file_name(game_id: str, version: int) -> str:
    """``leylo.observation.schema.json`` (version 1), ``leylo.observation.v2.schema.json``."""
    return f"{game_id}.{SUFFIXES[version]}"


def observation_schema(game_id: str, version: int) -> dict[str, Any]:
    """The JSON Schema of `game_id`'s observation in protocol `version` (1 or 2)."""
    declared = model(game_id)
    defs: dict[str, Any] = {}
    hints = get_type_hints(declared.envelope, include_extras=True)
    if version == 2:
        keys = list(hints)
        properties = {key: _schema(hints[key], defs) for key in keys}
        title = f"{declared.title} (protocol 2)"
    elif version == 1:
        keys = list(declared.v1.keys)
        properties = _v1_properties(declared, hints, defs)
        title = declared.title
    else:
        raise ValueError(f"no protocol version {version} (1 or 2)")
    schema: dict[str, Any] = {
        "$schema": DIALECT,
        "$id": BASE_URL + file_name(game_id, version),
        "title": title,
        "description": declared.description,
        "type": "object",
        "additionalProperties": False,
        "required": keys,
    }
    if defs:
        schema["$defs"] = defs
    schema["properties"] = properties
    return schema


def schema_text(game_id: str, version: int) -> str:
    """The schema as it is written to its file."""
    return json.dumps(observation_schema(game_id, version), indent=2, ensure_ascii=False) + "\n"


def _v1_properties(
    declared: ObservationModel, hints: dict[str, Any], defs: dict[str, Any]
) -> dict[str, Any]:
    """Version 1's keys in its order, each typed as the envelope key it comes from."""
    fields = get_type_hints(_base(hints["game"]), include_extras=True)
    properties = {}
    for key, source in declared.plan:
        if source == "game":
            annotation = fields[key]
        elif source == "to_move" and declared.v1.to_move == ONE_SEAT:
            annotation = declared.v1.to_move_type
        else:
            annotation = hints[source]
        properties[key] = _schema(annotation, defs)
    return properties


def _base(annotation: Any) -> Any:
    """The type inside ``Annotated[...]``."""
    return get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation


def _schema(annotation: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The schema of one annotation; named parts go to `defs` (once) and are referred to."""
    metadata: tuple[Any, ...] = ()
    if get_origin(annotation) is Annotated:
        annotation, *rest = get_args(annotation)
        metadata = tuple(rest)
    names = [i for i, item in enumerate(metadata) if isinstance(item, Named)]
    if not names:
        return _with(_plain(annotation, defs), metadata)
    at = names[-1]
    definition, used = metadata[:at], metadata[at + 1 :]
    name = metadata[at].name
    if name not in defs:
        defs[name] = {}  # taken: a definition refers to itself by name
        inner = Annotated[(annotation, *definition)] if definition else annotation
        defs[name] = _schema(inner, defs)
    return _with({"$ref": f"#/$defs/{name}"}, used)


def _with(node: dict[str, Any], metadata: tuple[Any, ...]) -> dict[str, Any]:
    """`node` with the keywords and description of every `Field` in `metadata` (the last
    description wins), the description last."""
    description = node.pop("description", None)
    for item in metadata:
        if isinstance(item, Field):
            node.update(item.keywords)
            description = item.description or description
    if description:
        node["description"] = description
    return node


def _plain(annotation: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The schema of a type without its annotations."""
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    origin = get_origin(annotation)
    if origin is Literal:
        return _enum(get_args(annotation))
    if origin is list:
        (item,) = get_args(annotation)
        return {"type": "array", "items": _schema(item, defs)}
    if origin is Union or origin is types.UnionType:
        return _union([_schema(member, defs) for member in get_args(annotation)])
    if isinstance(annotation, type) and hasattr(annotation, "__required_keys__"):
        return _object(annotation, defs)
    raise TypeError(f"no JSON Schema for {annotation!r}")


def _enum(values: tuple[Any, ...]) -> dict[str, Any]:
    """An ``enum``, with its ``type`` when every value is a string or every one an integer."""
    if all(isinstance(v, str) for v in values):
        return {"type": "string", "enum": list(values)}
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return {"type": "integer", "enum": list(values)}
    return {"enum": list(values)}


def _union(members: list[dict[str, Any]]) -> dict[str, Any]:
    """``X | None``: a ``type`` list when X is a plain scalar (its bounds apply to it only),
    else ``oneOf`` the members."""
    null = {"type": "null"}
    others = [m for m in members if m != null]
    if len(members) == 2 and len(others) == 1:
        other = others[0]
        scalar = other.get("type") in _SCALARS.values()
        if scalar and not {"enum", "description"} & set(other):
            return {**other, "type": [other["type"], "null"]}
    return {"oneOf": members}


def _object(typed: type, defs: dict[str, Any]) -> dict[str, Any]:
    """A TypedDict as a closed object: every key required, described by its docstring."""
    hints = get_type_hints(typed, include_extras=True)
    node: dict[str, Any] = {"type": "object"}
    if typed.__doc__:
        node["description"] = " ".join(inspect.cleandoc(typed.__doc__).split())
    node["additionalProperties"] = False
    node["required"] = list(hints)
    node["properties"] = {key: _schema(value, defs) for key, value in hints.items()}
    return node
