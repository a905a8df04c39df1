"""A stable identity for one tool surface: the exact specs a run was sent, and what they mean.

Two identities, because a re-described tool and a changed schema are different events: the exact
fingerprint changes with any byte of any spec (the request renders tools first, so a description
edit changes the very first bytes a model sees); the semantic one ignores key order, the order of
the tools and every description, and changes only when what the model could call changes.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

import orjson

from toolkit.errors import InvalidInput, UnreadableInput
from toolkit.record import JsonValue

Tools: TypeAlias = Sequence[JsonValue] | Mapping[str, JsonValue]
"""A tool surface as a request carries it: a list of specs, or one object (some clients send
Gemini's ``{"function_declarations": [...]}`` bare), which counts as a one-element list."""

HASH_PREFIX = "sha256:"
HASH_RE = re.compile(r"sha256:[0-9a-f]{64}")
"""A well-formed surface hash: the algorithm, a colon, 64 lowercase hex digits. Nothing else is
accepted as a name anywhere (so no name can walk out of a store directory)."""


def is_surface_hash(value: object) -> bool:
    """Whether ``value`` is a well-formed surface hash (``sha256:`` and 64 lowercase hex digits), the
    only names a store will open.

    Args:
        value: Anything read from a record or typed by a user.

    Returns:
        ``True`` for a well-formed hash.
    """
    return isinstance(value, str) and HASH_RE.fullmatch(value) is not None


def as_list(tools: Tools) -> list[JsonValue]:
    """The surface as a list: a lone object becomes a one-element list.

    Args:
        tools: The surface as given: a list of specs or one spec object.

    Returns:
        The specs.

    Raises:
        TypeError: ``tools`` is a string or bytes, which would otherwise read as a list of characters.
    """
    if isinstance(tools, Mapping):
        return [dict(tools)]
    if isinstance(tools, str | bytes):
        raise TypeError("a tool surface is a list of specs (or one spec object), not a string")
    return list(tools)


def tools_of(document: JsonValue) -> list[JsonValue]:
    """The tool surface inside a JSON document: a request body's ``tools``, or the document itself
    when it is a list of specs or a single spec object.

    Args:
        document: The parsed JSON of a tools file or a request body.

    Returns:
        The specs.

    Raises:
        InvalidInput: The document holds no surface (a number, a string, ``tools`` that is not a list).
    """
    if isinstance(document, dict):
        if "tools" in document:
            inner = document["tools"]
            if isinstance(inner, list | dict):
                return as_list(inner)
            raise InvalidInput(f"the request body's tools is a JSON {type(inner).__name__}, not a list")
        return [document]
    if isinstance(document, list):
        return document
    raise InvalidInput(f"a JSON {type(document).__name__} holds no tool surface (expected a list or an object)")


def read_tools(path: str | Path) -> list[JsonValue]:
    """The tool surface in a JSON file (``-``: standard input): a list of specs, one spec, or a
    request body with ``tools``. Bad input raises ``InvalidInput`` (a ``ValueError``; its
    ``UnreadableInput`` when the file cannot be read as UTF-8 JSON) naming the file, line and reason.

    Args:
        path: The JSON file, or ``-`` for standard input.

    Returns:
        The specs, in their order.

    Raises:
        InvalidInput: The file holds no tool surface, or cannot be read as UTF-8 JSON.
    """
    name = "<stdin>" if str(path) == "-" else str(path)
    try:
        data = sys.stdin.buffer.read() if str(path) == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise UnreadableInput(f"{name}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UnreadableInput(f"{name}:{line}: not valid UTF-8 ({exc.reason})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnreadableInput(f"{name}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    try:
        return tools_of(document)
    except ValueError as exc:
        raise InvalidInput(f"{name}: {exc}") from None


def canonical_bytes(tools: Tools) -> bytes:
    """The canonical form of the exact surface: the specs as sent, in their order, each object's
    keys in their given order, compact separators (``,`` and ``:``), non-ASCII written as UTF-8
    rather than escaped (lone surrogates kept with ``surrogatepass``), numbers as Python's ``json``
    writes them (``NaN``/``Infinity`` included). This is also the content of a store file, so a
    file's hash is its name. The form is frozen: stored blobs are named by it.

    Args:
        tools: The surface as sent (a list of specs, or one spec).

    Returns:
        The bytes whose sha256 is the surface hash.
    """
    specs = as_list(tools)
    try:
        data = orjson.dumps(specs)
    except orjson.JSONEncodeError:  # lone surrogates, keys that are not strings, huge integers
        data = b""
    if data and not _written_otherwise(data):
        return data  # 2 us against 20 for ``json.dumps`` of a 5 KB surface (each file has its own)
    text = json.dumps(specs, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")


def _written_otherwise(data: bytes) -> bool:
    """Whether orjson's bytes may differ from the frozen form (orjson 3.x against Python's ``json``
    with compact separators and ``ensure_ascii=False``): a float written with an exponent by either
    (Python writes 1e-05 where orjson writes 0.00001), that is a digit followed by ``e`` or ``E``
    (found as ``0e`` once every digit reads ``0`` and ``E`` reads ``e``), and ``null``, which orjson
    writes for NaN and infinities that Python writes as ``NaN``/``Infinity``. The test is on the
    bytes, so a string that merely holds such text only costs the slower path. Strings, escapes,
    integers, other floats, key order and separators are written alike
    (``tests/test_surface_fingerprint_bytes.py`` checks both writers). A translate and three
    substring searches are cheaper than the one regular expression they replace."""
    return b"0e" in data.translate(_DIGITS_AS_ZERO) or b"0.0000" in data or b"null" in data


_DIGITS_AS_ZERO = bytes.maketrans(b"123456789E", b"000000000e")


def semantic_bytes(tools: Tools) -> bytes:
    """The canonical form of what the surface means: every spec reduced to kind, name, schema
    and other settings with every description removed (the tool's own and those inside its JSON
    schemas) and Anthropic's ``cache_control`` marker left out, keys sorted, the tools sorted.
    Shapes that say the same thing (an OpenAI chat spec and an Anthropic spec of one tool with
    one schema) give the same bytes.

    Args:
        tools: The surface as sent (a list of specs, or one spec), in any provider's shape.

    Returns:
        The bytes whose sha256 is the semantic hash.
    """
    forms = sorted(_dumps(spec.semantic()) for spec in tool_specs(tools))
    return ("[" + ",".join(forms) + "]").encode("utf-8", "surrogatepass")


def fingerprint(tools: Tools, semantic: bool = False) -> str:
    """The identity of a tool surface: ``sha256:<hex>`` of its canonical bytes.

    Args:
        tools: The tool specs as a request carries them: a list, or one spec object (a one-element
            list).
        semantic: Hash the semantic bytes instead, so only a change in what can be called changes
            the hash; without, any edit to any byte of any spec changes it.

    Returns:
        The hash, ``sha256:`` and 64 hex digits.

    Raises:
        TypeError: ``tools`` is a string, not specs."""
    data = semantic_bytes(tools) if semantic else canonical_bytes(tools)
    return HASH_PREFIX + hashlib.sha256(data).hexdigest()


def _dumps(value: JsonValue) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool of a surface, whatever provider shape it came in, split into the parts an
    analysis compares: its name, its description and its schema."""

    name: str | None
    kind: str
    """``function`` (a JSON-schema tool), ``custom`` (a free-text grammar tool), a server tool's
    own type (``web_search_20250305``, ``googleSearch``...), or ``unknown``."""
    description: JsonValue
    schema: JsonValue
    """The input schema (``parameters``, ``input_schema``, ``parametersJsonSchema``...) or a
    custom tool's ``format``; ``None`` when the tool has none."""
    shape: str
    """Where it came from: ``openai_chat``, ``openai_responses``, ``anthropic``, ``gemini``,
    ``bedrock``, ``flat`` (bare ``{name, description, parameters}``) or ``other``."""
    raw: JsonValue
    """The spec exactly as sent (for Gemini, the one declaration)."""
    position: int
    """Index among the surface's tools after Gemini declarations are spread out."""
    extra: dict[str, JsonValue] = field(default_factory=dict)
    """Every other setting the spec carried (``strict``, ``cache_control``, a server tool's
    options); part of the schema as far as a comparison goes."""

    def semantic(self) -> JsonValue:
        """What the model could call: everything but descriptions and key order.

        Returns:
            The JSON form whose bytes ``semantic_bytes`` hashes.
        """
        if self.kind == "unknown":
            return {"kind": "unknown", "raw": _strip_top(self.raw)}
        return {
            "kind": self.kind,
            "name": self.name,
            "schema": strip_descriptions(self.schema),
            "extra": {k: _strip_extra(k, v) for k, v in self.extra.items() if k not in NOT_MEANING},
        }

    def unnamed(self) -> str:
        """The semantic form without the name: equal for a renamed tool with the same schema.

        Returns:
            That form as canonical JSON text.
        """
        form = self.semantic()
        assert isinstance(form, dict)
        return _dumps({k: v for k, v in form.items() if k != "name"})

    def schemas(self) -> dict[str, dict[str, JsonValue]]:
        """Every schema object the spec holds, by path (``schema``, ``schema.properties.x``...).

        Returns:
            Each schema object under its path.
        """
        found = dict(subschemas(self.schema, "schema"))
        for key, value in self.extra.items():
            if key in SCHEMA_EXTRAS:
                found.update(subschemas(value, key))
        return found

    def descriptions(self) -> dict[str, JsonValue]:
        """Every description the spec carries, by where it sits (``""`` is the tool's own).

        Returns:
            Each description under its path.
        """
        found: dict[str, JsonValue] = {} if self.description is None else {"": self.description}
        found.update((path, node["description"]) for path, node in self.schemas().items() if "description" in node)
        return found


def tool_specs(tools: Tools) -> list[ToolSpec]:
    """Every tool of a surface, in order, read from any provider's shape. An element no shape
    matches is kept as ``unknown`` (compared byte for byte), never dropped.

    Args:
        tools: The surface as sent (a list of specs, or one spec).

    Returns:
        One ``ToolSpec`` per tool (a spec that declares several, as a Gemini one does, gives several).
    """
    out: list[ToolSpec] = []
    for element in as_list(tools):
        out.extend(_read(element, len(out)))
    return out


GEMINI_DECLARATIONS = ("functionDeclarations", "function_declarations")
GEMINI_TOOL_FIELDS = frozenset({
    "googleSearchRetrieval", "codeExecution", "googleSearch", "computerUse", "urlContext", "fileSearch",
    "googleMaps", "retrieval", "enterpriseWebSearch",
    "google_search_retrieval", "code_execution", "google_search", "computer_use", "url_context", "file_search",
    "google_maps", "enterprise_web_search",
})
"""Built-in tools a Gemini ``Tool`` object may hold beside ``functionDeclarations`` (fields of the
``Tool`` message, https://ai.google.dev/api/caching#Tool and Vertex AI's ``Tool``, read 2026-11-29;
snake case as the Python SDK dumps them). Each becomes its own server tool, named by its field."""
SCHEMA_KEYS = ("parameters", "parametersJsonSchema", "parameters_json_schema", "input_schema", "inputSchema")
"""Where each shape keeps the input schema (OpenAI and Gemini ``parameters``, Gemini's JSON-schema
variants, Anthropic ``input_schema``, MCP ``inputSchema``)."""
NOT_MEANING = frozenset({"description", "cache_control"})
"""Settings that change the bytes but not what can be called: descriptions, and Anthropic's
``cache_control`` breakpoint marker (https://platform.claude.com/docs/en/build-with-claude/prompt-caching,
read 2026-11-29), which clients move between tools as the surface grows."""
SCHEMA_EXTRAS = frozenset({
    "response", "responseJsonSchema", "response_json_schema", "output_schema", "outputSchema",
})
"""Other settings that hold a JSON schema (output schemas), whose descriptions are descriptions."""


def _read(element: JsonValue, position: int) -> Iterator[ToolSpec]:
    if not isinstance(element, dict):
        yield ToolSpec(None, "unknown", None, None, "other", element, position)
        return
    declarations = next((element[k] for k in GEMINI_DECLARATIONS if k in element), None)
    if isinstance(declarations, list) or ("type" not in element and GEMINI_TOOL_FIELDS & element.keys()):
        for declaration in declarations if isinstance(declarations, list) else ():
            if isinstance(declaration, dict):
                yield _flat(declaration, "gemini", position, "function")
            else:
                yield ToolSpec(None, "unknown", None, None, "gemini", declaration, position)
            position += 1
        for key, value in element.items():
            if key not in GEMINI_DECLARATIONS:
                yield ToolSpec(key, key, None, None, "gemini", {key: value}, position, {key: value})
                position += 1
        return
    kind = element.get("type")
    inner = element.get(kind) if isinstance(kind, str) else None
    if kind == "function" and isinstance(inner, dict):
        yield _flat(inner, "openai_chat", position, "function", element, ("type", "function"))
    elif kind == "custom" and isinstance(inner, dict):
        yield _flat(inner, "openai_chat", position, "custom", element, ("type", "custom"))
    elif isinstance(element.get("toolSpec"), dict):
        spec = element["toolSpec"]
        assert isinstance(spec, dict)
        schema = spec.get("inputSchema")
        if isinstance(schema, dict) and set(schema) == {"json"}:
            spec = {**spec, "inputSchema": schema["json"]}
        yield _flat(spec, "bedrock", position, "function", element, ("toolSpec",))
    elif "input_schema" in element:
        yield _flat(element, "anthropic", position, "function", drop=("type",) if kind == "custom" else ())
    elif kind in ("function", "custom") and "name" in element:
        yield _flat(element, "openai_responses", position, kind, drop=("type",))
    elif isinstance(kind, str):
        name = element.get("name", element.get("server_label", kind))
        yield ToolSpec(
            name if isinstance(name, str) else kind, kind, element.get("description"), None, "other",
            element, position, {k: v for k, v in element.items() if k not in ("description",)},
        )
    elif isinstance(element.get("name"), str):
        yield _flat(element, "flat", position, "function")
    else:
        yield ToolSpec(None, "unknown", None, None, "other", element, position)


def _flat(
    spec: dict[str, JsonValue],
    shape: str,
    position: int,
    kind: str,
    raw: JsonValue = None,
    drop: tuple[str, ...] = (),
) -> ToolSpec:
    """A spec whose name, description and schema sit side by side (every shape once unwrapped)."""
    name = spec.get("name")
    schema_key = "format" if kind == "custom" else next((k for k in SCHEMA_KEYS if k in spec), None)
    taken = {"name", "description", *(() if schema_key is None else (schema_key,))}
    extra = {k: v for k, v in spec.items() if k not in taken}
    if isinstance(raw, dict):
        extra.update({k: v for k, v in raw.items() if k not in drop})
    else:
        for key in drop:
            extra.pop(key, None)
    return ToolSpec(
        name=name if isinstance(name, str) else None,
        kind=kind,
        description=spec.get("description"),
        schema=None if schema_key is None else spec.get(schema_key),
        shape=shape,
        raw=spec if raw is None else raw,
        position=position,
        extra=extra,
    )


SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""JSON-schema keywords whose value maps names to subschemas: the keys are names (a property may
well be called ``description``), the values are schemas."""
SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "any_of"})
SUBSCHEMA_ONE = frozenset({
    "items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains",
    "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema",
})
"""Keywords per JSON Schema 2020-12 Core §10 (https://json-schema.org/draft/2020-12/json-schema-core,
read 2026-11-29) plus the older ``definitions``/``additionalItems`` and Gemini's snake-case
``any_of``; every other keyword's value (``enum``, ``const``, ``default``...) is data, kept as is."""


def strip_descriptions(schema: JsonValue) -> JsonValue:
    """A JSON schema without its ``description`` keywords, walked by structure so that data
    (an ``enum`` value, a property named ``description``) is never taken for one.

    Args:
        schema: A JSON schema, or any part of one.

    Returns:
        A copy without descriptions; ``schema`` is left as it was.
    """
    if isinstance(schema, list):
        return [strip_descriptions(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, JsonValue] = {}
    for key, value in schema.items():
        if key == "description":
            continue
        if key in SUBSCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: strip_descriptions(sub) for name, sub in value.items()}
        elif (key in SUBSCHEMA_LISTS and isinstance(value, list)) or key in SUBSCHEMA_ONE:
            out[key] = strip_descriptions(value)
        else:
            out[key] = value
    return out


def subschemas(schema: JsonValue, path: str) -> Iterator[tuple[str, dict[str, JsonValue]]]:
    """Every schema object inside ``schema`` (itself included) with its path, walked by the same
    structure ``strip_descriptions`` follows."""
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            yield from subschemas(item, f"{path}[{i}]")
        return
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key, value in schema.items():
        if key in SUBSCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from subschemas(sub, f"{path}.{key}.{name}")
        elif (key in SUBSCHEMA_LISTS and isinstance(value, list)) or key in SUBSCHEMA_ONE:
            yield from subschemas(value, f"{path}.{key}")


def _strip_extra(key: str, value: JsonValue) -> JsonValue:
    return strip_descriptions(value) if key in SCHEMA_EXTRAS else value


def _strip_top(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k != "description"}
    return value
