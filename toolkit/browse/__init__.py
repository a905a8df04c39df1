"""Read a session turn by turn and search a corpus: ``toolkit show``, ``toolkit search``, the notebook
browser (``browser``) and the session table of ``toolkit info --sessions``.

``page``/``write`` draw a session as one offline HTML page (``toolkit.browse.rendering``; ``showcase``
chooses the session that shows the most with the least when none is named), ``search``
finds blocks over the frames with the anchor of each result's message in that page, ``browser`` is
the same in a notebook with ipywidgets controls. Names resolve on first use: the page needs no
polars, the search and the widget do."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolkit.browse.anchors import block_anchor, message_anchor, session_anchor
    from toolkit.browse.rendering import Replay, choose, fragment, page, showcase, write
    from toolkit.browse.replaying import Bodies, bodies, default_wire
    from toolkit.browse.searching import search, text_rows
    from toolkit.browse.sessions import session_table
    from toolkit.browse.turns import Layout, layout
    from toolkit.browse.usage import MessageUsage, message_usage
    from toolkit.browse.widget import browser

_LAZY = {
    "block_anchor": "toolkit.browse.anchors", "message_anchor": "toolkit.browse.anchors",
    "session_anchor": "toolkit.browse.anchors",
    "Replay": "toolkit.browse.rendering", "choose": "toolkit.browse.rendering", "fragment": "toolkit.browse.rendering",
    "page": "toolkit.browse.rendering", "showcase": "toolkit.browse.rendering", "write": "toolkit.browse.rendering",
    "Bodies": "toolkit.browse.replaying", "bodies": "toolkit.browse.replaying",
    "default_wire": "toolkit.browse.replaying",
    "search": "toolkit.browse.searching", "text_rows": "toolkit.browse.searching",
    "session_table": "toolkit.browse.sessions",
    "Layout": "toolkit.browse.turns", "layout": "toolkit.browse.turns",
    "MessageUsage": "toolkit.browse.usage", "message_usage": "toolkit.browse.usage",
    "browser": "toolkit.browse.widget",
}

__all__ = [
    "Bodies",
    "Layout",
    "MessageUsage",
    "Replay",
    "block_anchor",
    "bodies",
    "browser",
    "choose",
    "default_wire",
    "fragment",
    "layout",
    "message_anchor",
    "message_usage",
    "page",
    "search",
    "session_anchor",
    "session_table",
    "showcase",
    "text_rows",
    "write",
]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
