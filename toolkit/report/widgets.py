"""Widgets as static HTML, so a shared report shows every control and every widget output with no
JavaScript and no network.

A widget in an executed notebook is only a reference (``application/vnd.jupyter.widget-view+json``)
to a model in the notebook's saved widget state; JupyterLab draws it with the widget manager, and
nbconvert's HTML asks a CDN for that manager. Offline the output is empty. Here each reference is
replaced by HTML drawn from the saved state: the controls as disabled form elements showing the
value they had, progress bars as ``<progress>``, boxes as flex rows and columns, and an ``Output``
widget as the outputs it captured. Nothing is interactive, but nothing is blank either."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_REF = "IPY_MODEL_"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

Models = Mapping[str, Mapping[str, Any]]


class Base64(str):
    """A binary widget field (an ``Image``'s pixels) as nbclient saved it: base64 text."""
"""Model id → ``{"model_name": ..., "state": {...}}``, as nbclient saves them."""


def static_widgets(nb: Any) -> int:
    """Replace every widget view in ``nb`` (an executed ``NotebookNode``) by its static HTML and
    drop the saved widget state; returns how many views were replaced."""
    models: Models = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    replaced = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data")
            if not data or WIDGET_VIEW not in data:
                continue
            model_id = str(data[WIDGET_VIEW].get("model_id", ""))
            data["text/html"] = f'<div class="toolkit-static-widget">{widget_html(model_id, models)}</div>'
            del data[WIDGET_VIEW]
            replaced += 1
    nb.metadata.pop("widgets", None)
    return replaced


def widget_html(model_id: str, models: Models, depth: int = 0) -> str:
    """HTML for one model and its children; a model the state does not hold says so visibly."""
    model = models.get(model_id)
    if model is None or depth > 50:
        return '<div class="toolkit-widget-missing">(widget not saved with the notebook)</div>'
    name = str(model.get("model_name", ""))
    state: dict[str, Any] = dict(model.get("state", {}))
    for buffer in model.get("buffers") or []:
        path = buffer.get("path") or []
        if len(path) == 1 and buffer.get("encoding") == "base64":
            state[str(path[0])] = Base64(str(buffer.get("data", "")))
    drawer = _DRAWERS.get(name)
    body = drawer(state, models, depth) if drawer else _unknown(name, state)
    return _described(state, body) if name not in _NO_LABEL else body


def _described(state: Mapping[str, Any], body: str) -> str:
    label = str(state.get("description") or "")
    if not label:
        return body
    return (f'<span style="display:inline-flex;gap:.5em;align-items:center">'
            f"<label>{html.escape(label)}</label>{body}</span>")


def _children(state: Mapping[str, Any], models: Models, depth: int) -> list[str]:
    refs = state.get("children") or []
    return [widget_html(str(ref).removeprefix(_REF), models, depth + 1) for ref in refs]


def _box(direction: str) -> Callable[[Mapping[str, Any], Models, int], str]:
    def draw(state: Mapping[str, Any], models: Models, depth: int) -> str:
        inner = "".join(f"<div>{child}</div>" for child in _children(state, models, depth))
        return (f'<div style="display:flex;flex-direction:{direction};gap:.4em;'
                f'align-items:{"center" if direction == "row" else "stretch"}">{inner}</div>')
    return draw


def _tabs(state: Mapping[str, Any], models: Models, depth: int) -> str:
    titles = list(state.get("titles") or [])
    parts = []
    for index, child in enumerate(_children(state, models, depth)):
        title = titles[index] if index < len(titles) and titles[index] else f"#{index + 1}"
        parts.append(f"<details open><summary>{html.escape(str(title))}</summary>{child}</details>")
    return "".join(parts)


def _html(state: Mapping[str, Any], models: Models, depth: int) -> str:
    return str(state.get("value") or "")


def _label(state: Mapping[str, Any], models: Models, depth: int) -> str:
    return f"<span>{html.escape(str(state.get('value') or ''))}</span>"


def _progress(state: Mapping[str, Any], models: Models, depth: int) -> str:
    low, high, value = (float(state.get(k) or 0) for k in ("min", "max", "value"))
    span = high - low
    return (f'<progress value="{value - low:g}" max="{span if span > 0 else 1:g}" '
            f'style="width:12em">{value:g}</progress>')


def _choice(state: Mapping[str, Any], models: Models, depth: int) -> str:
    labels = [str(label) for label in state.get("_options_labels") or []]
    index = state.get("index")
    chosen = set(index) if isinstance(index, list) else {index}
    options = "".join(f'<option{" selected" if i in chosen else ""}>{html.escape(label)}</option>'
                      for i, label in enumerate(labels))
    return f"<select disabled>{options}</select>"


def _slider(state: Mapping[str, Any], models: Models, depth: int) -> str:
    value = state.get("value")
    shown = " – ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    first = value[0] if isinstance(value, list) and value else value
    return (f'<input type="range" disabled min="{state.get("min", 0)}" max="{state.get("max", 100)}" '
            f'step="{state.get("step") or 1}" value="{first}"><output>{html.escape(shown)}</output>')


def _text(state: Mapping[str, Any], models: Models, depth: int) -> str:
    return f'<input type="text" disabled value="{html.escape(str(state.get("value", "")), quote=True)}">'


def _textarea(state: Mapping[str, Any], models: Models, depth: int) -> str:
    return f"<textarea disabled rows=3>{html.escape(str(state.get('value', '')))}</textarea>"


def _checkbox(state: Mapping[str, Any], models: Models, depth: int) -> str:
    return f'<input type="checkbox" disabled{" checked" if state.get("value") else ""}>'


def _button(state: Mapping[str, Any], models: Models, depth: int) -> str:
    return f"<button disabled>{html.escape(str(state.get('description') or 'button'))}</button>"


def _image(state: Mapping[str, Any], models: Models, depth: int) -> str:
    value = state.get("value")
    if not isinstance(value, Base64) or not value:
        return _unknown("ImageModel", {})
    kind = html.escape(str(state.get("format") or "png"), quote=True)
    size = "".join(f' {side}="{html.escape(str(state[side]), quote=True)}"'
                   for side in ("width", "height") if state.get(side))
    return f'<img src="data:image/{kind};base64,{value}"{size} alt="widget image">'


def _valid(state: Mapping[str, Any], models: Models, depth: int) -> str:
    return "<span>✔ valid</span>" if state.get("value") else f"<span>✘ {html.escape(str(state.get('readout') or 'invalid'))}</span>"


def _output(state: Mapping[str, Any], models: Models, depth: int) -> str:
    outputs = state.get("outputs") or []
    if not outputs:
        return '<div class="toolkit-widget-empty">(empty in this report: it fills when the control above is used in JupyterLab)</div>'
    return "".join(output_html(output, models, depth) for output in outputs)


def output_html(output: Mapping[str, Any], models: Models, depth: int = 0) -> str:
    """One nbformat output (what an ``Output`` widget captured) as HTML."""
    kind = output.get("output_type")
    if kind == "stream":
        return f"<pre>{html.escape(_ANSI.sub('', _joined(output.get('text'))))}</pre>"
    if kind == "error":
        trace = "\n".join(_ANSI.sub("", str(line)) for line in output.get("traceback") or [])
        return f'<pre class="toolkit-widget-error">{html.escape(trace)}</pre>'
    data: Mapping[str, Any] = output.get("data") or {}
    if WIDGET_VIEW in data:
        return widget_html(str(data[WIDGET_VIEW].get("model_id", "")), models, depth + 1)
    if "text/html" in data:
        return _joined(data["text/html"])
    if "image/svg+xml" in data:
        return _joined(data["image/svg+xml"])
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            return f'<img src="data:{mime};base64,{_joined(data[mime]).strip()}">'
    if "text/markdown" in data:
        from nbconvert.filters.markdown import markdown2html_mistune

        return str(markdown2html_mistune(_joined(data["text/markdown"])))
    return f"<pre>{html.escape(_joined(data.get('text/plain')))}</pre>"


def _joined(value: Any) -> str:
    return "".join(str(v) for v in value) if isinstance(value, list) else str(value or "")


def _unknown(name: str, state: Mapping[str, Any]) -> str:
    value = state.get("value")
    shown = "" if value is None else f": {html.escape(str(value))}"
    return f'<div class="toolkit-widget-unknown">[{html.escape(name or "widget")}{shown}]</div>'


_NO_LABEL = frozenset({"ImageModel", "HBoxModel", "VBoxModel", "BoxModel", "GridBoxModel", "OutputModel", "ButtonModel",
                       "HTMLModel", "HTMLMathModel", "TabModel", "AccordionModel", "StackModel"})

_DRAWERS: dict[str, Callable[[Mapping[str, Any], Models, int], str]] = {
    "HBoxModel": _box("row"), "VBoxModel": _box("column"), "BoxModel": _box("column"),
    "GridBoxModel": _box("row"), "TabModel": _tabs, "AccordionModel": _tabs, "StackModel": _tabs,
    "HTMLModel": _html, "HTMLMathModel": _html, "LabelModel": _label,
    "FloatProgressModel": _progress, "IntProgressModel": _progress,
    "DropdownModel": _choice, "SelectModel": _choice, "RadioButtonsModel": _choice,
    "ToggleButtonsModel": _choice, "SelectMultipleModel": _choice, "SelectionSliderModel": _choice,
    "IntSliderModel": _slider, "FloatSliderModel": _slider, "FloatLogSliderModel": _slider,
    "IntRangeSliderModel": _slider, "FloatRangeSliderModel": _slider,
    "TextModel": _text, "IntTextModel": _text, "FloatTextModel": _text, "BoundedIntTextModel": _text,
    "BoundedFloatTextModel": _text, "PasswordModel": _text, "ComboboxModel": _text,
    "TextareaModel": _textarea, "CheckboxModel": _checkbox, "ToggleButtonModel": _checkbox,
    "ButtonModel": _button, "OutputModel": _output, "ImageModel": _image, "ValidModel": _valid,
    "SelectionRangeSliderModel": _choice, "DatePickerModel": _text, "ColorPickerModel": _text,
    "NaiveDatetimeModel": _text, "DatetimeModel": _text, "TimePickerModel": _text,
}
