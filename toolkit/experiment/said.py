"""Saying without doing: a reply that announces or reports an action in text with no call ("closing
#506 ... closed", and nothing was called). A history replayed as text alone shows a reply that acted
and one that only said so alike, so a model reading it can learn that acting is something it says.

``says_action`` is a small set of readable rules over the reply's words, clause by clause. A clause
counts when it announces an action the speaker is taking now ("I'll close #506", "Let me run the
tests", "Closing it now.") or reports one as done ("I've updated the file", "Added a badge", "the PR
has been merged", "Done — merged"). It does not count when it explains, answers, asks ("Should I
close it?"), offers or plans in the abstract ("We could close it", "If you approve, I'll update it"),
negates ("I didn't close it"), or describes what something else does ("The test closes the socket").
Actions are the ones an agent does through tools: editing, running, creating, deleting, merging,
sending, and also reading, checking and searching, which are calls too.

The rules are checked against the labelled sample ``tests/data/said_labels.json`` (real replies of
the shared corpora, from every format that has them): ``tests/test_experiment_said.py`` holds its
precision and recall to a margin, and the findings page (``docs/findings.md``) gives the figures with
their date. In-sample: the rules were written while labelling this sample, so those figures are an
upper bound on what a fresh sample would give; a held-out sample is still to label. The misses are verbless step headings (a lone "Cleanup:"), generic verbs ("do the
testing") and acts named by a verb outside the list; the false alarms are reports of testing or
changes inside a findings reply, and a gerund used as a subject ("Building apps is ...").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING

from toolkit.experiment.trials import ReplyKind
from toolkit.record import Message, Session, Text, ToolUse, bare_tool_name

if TYPE_CHECKING:
    import altair as alt
    import polars as pl

# Verbs of acting through a tool. Inspection counts (a read or a search is a call); talking does not
# (explain, summarise, clarify, present, answer are left out on purpose). ``make`` and ``see`` are
# left out too: "make sure", "let's see" are figures of speech, not acts.
_VERBS = (
    "add", "analyse", "analyze", "apply", "build", "call", "change", "check", "clean", "close",
    "commit", "configure", "convert", "copy", "correct", "create", "debug", "delete", "deploy",
    "disable", "downgrade", "download", "edit", "email", "enable", "examine", "execute", "explore",
    "extract", "fetch", "file", "find", "fix", "gather", "generate", "grep", "implement", "insert",
    "inspect", "install", "introduce", "investigate", "kill", "launch", "list", "load", "look", "mark",
    "merge", "modify", "move", "navigate", "open", "paste", "patch", "post", "pull", "push", "re-read",
    "re-run", "read", "recreate", "refactor", "reintroduce", "remove", "rename", "replace", "reproduce",
    "rerun", "restart", "restore", "retry", "revert", "review", "rewrite", "run", "save", "scaffold",
    "search", "send", "serve", "set", "spawn", "start", "stop", "submit", "switch", "test", "track",
    "try", "uninstall", "update", "upgrade", "upload", "use", "verify", "write",
)

# Forms the regular rules get wrong.
_IRREGULAR: dict[str, tuple[str, str]] = {
    "build": ("building", "built"), "find": ("finding", "found"), "read": ("reading", "read"),
    "re-read": ("re-reading", "re-read"), "rewrite": ("rewriting", "rewrote"), "run": ("running", "ran"),
    "re-run": ("re-running", "re-ran"), "rerun": ("rerunning", "reran"), "send": ("sending", "sent"),
    "set": ("setting", "set"), "spawn": ("spawning", "spawned"), "stop": ("stopping", "stopped"),
    "submit": ("submitting", "submitted"), "commit": ("committing", "committed"),
    "write": ("writing", "wrote"), "grep": ("grepping", "grepped"), "patch": ("patching", "patched"),
}


def _forms(verb: str) -> tuple[str, str]:
    """The -ing and past forms of ``verb`` (regular English spelling unless listed above)."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("e"):
        return verb[:-1] + "ing", verb + "d"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb + "ing", verb[:-1] + "ied"
    return verb + "ing", verb + "ed"


def _alternation(words: Iterable[str]) -> str:
    return "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))


_BASE = _alternation(_VERBS)
_ING = _alternation(_forms(v)[0] for v in _VERBS)
# "Looking at the docs, ..." opens a participle phrase far more often than an announcement.
_ING_OPENING = _alternation(_forms(v)[0] for v in _VERBS if v != "look")
# "I found" reports a finding, not an act ("Here's what I found:"); "let me find" still counts.
_PAST = _alternation(_forms(v)[1] for v in _VERBS if v != "find")
# A past form that is also the base form ("Run", "Read", "Set") opens an instruction to the user as
# often as a report, so clause-initial reports use only the distinct past forms.
_PAST_DISTINCT = _alternation(p for v in _VERBS if (p := _forms(v)[1]) != v and v != "find")
# An opening verb must have something after it: a bare "Running" or "Started:" is a table cell or a
# label, not a sentence. An -ing form may end on a colon: "Disabling:" announces what follows.
_FOLLOWED = r"\b(?=\s*[^\s:|])"
_FOLLOWED_ING = r"\b(?=\s*[^\s|])"
# Words that may sit between the subject and the verb without changing who acts or whether.
_ADVERBS = r"(?:(?:also|now|first|then|just|quickly|already|successfully|carefully|properly|go ahead and|" \
    r"help(?: you)?|try to|actually)\s+)*"

_RULES: tuple[re.Pattern[str], ...] = (
    # First-person announcement of the next act: "I'll close #506", "Let me run the tests",
    # "I'm going to merge it", "Let's open the file", "I am now creating ...".
    re.compile(rf"\b(?:I'll|I will|I'm going to|I am going to|let me|let's|let us|we'll now)\s+{_ADVERBS}"
               rf"(?:{_BASE})\b", re.IGNORECASE),
    re.compile(rf"\b(?:I'm|I am)\s+{_ADVERBS}(?:{_ING})\b", re.IGNORECASE),
    # First-person report of a finished act: "I've updated the file", "I disabled the middleware".
    re.compile(rf"\b(?:I|I've|I have|we've|we have)\s+{_ADVERBS}(?:{_PAST})\b", re.IGNORECASE),
    # A clause that opens with the act in progress, the terse agent style: "Closing it now.",
    # "Checking git files", "Downgrading React:". Anchored at the clause's start, so "the test
    # closes the socket" never matches.
    re.compile(rf"^(?:(?:Now|Then|Also|Next|First),?\s+)?(?:{_ING_OPENING}){_FOLLOWED_ING}", re.IGNORECASE),
    # A clause that opens with the act done, the changelog style: "Added a badge", "Removed the
    # flags", "Successfully migrated ...".
    re.compile(rf"^(?:(?:Successfully|Also|Then|Now|Finally),?\s+)?(?:{_PAST_DISTINCT}){_FOLLOWED}",
               re.IGNORECASE),
    # Passive report: "the README has been updated", "the issue has been closed".
    re.compile(rf"\b(?:has|have)\s+(?:now\s+|also\s+|already\s+)?been\s+{_ADVERBS}(?:{_PAST})\b",
               re.IGNORECASE),
    # Outcome report that implies the act: "the PR is now merged", "both servers are now running".
    re.compile(r"\b(?:is|are)\s+now\s+(?:merged|closed|deployed|installed|pushed|committed|running|fixed)\b",
               re.IGNORECASE),
    # Done headings: "Done — the PR is merged", "Fix applied", "Migration complete", "Identified and Fixed".
    re.compile(r"^(?:done|closed|merged|pushed|committed|fixed)\b|\b(?:fix(?:es)?|changes?) (?:applied|made)\b"
               r"|\b(?:creation|migration|installation|setup|cleanup|deployment|update|upgrade|fix)\s+"
               r"(?:is\s+)?complete(?:d)?\b|\band fixed\b", re.IGNORECASE),
    # Korean completed-action reports (the corpora hold Korean Codex sessions): "추가했습니다" (added),
    # "수정했습니다" (modified), "넣었습니다" (put in).
    re.compile(r"(?:추가|수정|변경|삭제|생성|커밋|푸시|실행|설치|적용|반영|교체|제거|병합)(?:했|하였)(?:습니다|어요)"
               r"|(?:넣었|바꿨|만들었|닫았|지웠)(?:습니다|어요)"),
    # Chinese announcements and reports: "让我运行" (let me run), "已并行启动" (launched in parallel).
    re.compile(r"(?:让我|我来|我将|我会)(?:先)?(?:运行|执行|检查|查看|读取|创建|修改|更新|删除|提交|推送|启动|关闭|合并|搜索)"
               r"|已(?:经)?(?:并行)?(?:创建|修改|更新|删除|提交|推送|启动|运行|关闭|合并|安装|修复)"),
)

# A clause is dropped when it asks, offers, or makes the act depend on someone else: "Should I close
# it?", "Want me to restart?", "If you approve, I'll update it", "Let me know and I'll restart",
# "Then I'll restart the backend" (after telling the user what to do first); and when it points back
# at an act of an earlier turn ("the server I killed earlier"), which is not this reply acting.
_NOT_NOW = re.compile(
    r"\?\s*$|？\s*$|^\s*(?:if|once|when|after you|unless|then)\b|\bif (?:you|yes|needed|so)\b"
    r"|\blet me know\b|\bwould you like\b|\bwant me to\b|\bshould I\b|\bonce you\b|\bwhen you\b"
    r"|\bwaiting for you\b|\b(?:earlier|previously)\b",
    re.IGNORECASE,
)
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE = re.compile(r"`[^`\n]*`")
# Clauses end at line breaks and sentence punctuation (Latin and CJK); the terminator stays with its
# clause so a question is still recognised.
_CLAUSE = re.compile(r"[^\n.!?;:。！？]+[.!?;:。！？]*")
_LEAD = re.compile(r"^[\s\-*#>|•+\d.)✅✓❌⚠️🎯🔍🚨]*(?:\*\*|__)?\s*")


def _clauses(text: str) -> list[str]:
    """The reply's clauses, code left out (a fenced command or a quoted string is not the speaker
    talking) and list markers, headings and emphasis stripped from their start."""
    prose = _INLINE.sub("X", _FENCED.sub("\n", text))
    return [_LEAD.sub("", c).replace("**", "").strip() for c in _CLAUSE.findall(prose)]


def says_action(text: str) -> bool:
    """Whether ``text`` announces an action the speaker is taking or reports one as done."""
    return any(
        not _NOT_NOW.search(clause) and any(rule.search(clause) for rule in _RULES)
        for clause in _clauses(text) if clause
    )


def classify(text: str, calls: Sequence[str], expect: Collection[str]) -> ReplyKind:
    """What a reply did: called an expected tool (names compared bare), called another, only said
    it acted, or neither."""
    wanted = {bare_tool_name(name) for name in expect}
    if any(bare_tool_name(name) in wanted for name in calls):
        return "called"
    if calls:
        return "called_other"
    return "said" if says_action(text) else "other"


def reply_text(messages: Iterable[Message]) -> str:
    """The words of a reply (its messages' text blocks), as the classifier reads them."""
    return "\n".join(t for m in messages for b in m.blocks if isinstance(b, Text) and (t := b.text).strip())


def reply_calls(messages: Iterable[Message]) -> list[str]:
    """The names of the tools a reply called, as recorded."""
    return [b.name for m in messages for b in m.blocks if isinstance(b, ToolUse)]


def _model(session: Session, run: Sequence[Message]) -> str:
    for message in run:
        if message.model:
            return message.model
    config = session.run_config(run[0].id)
    return config.model if config is not None and config.model else "unknown"


REPLY_COLUMNS = ("file", "session", "client", "model", "index", "position", "said", "called",
                 "said_without_doing")


def replies(corpus_or_sessions: Iterable[Session]) -> pl.DataFrame:
    """One row per assistant reply on each session's main path (a reply is a run of consecutive
    assistant messages, grouped as the compaction simulator groups requests). ``said`` reads only
    the text; a summary that reports calls made in earlier replies counts as said without doing,
    which is what a text-only replay shows the next turn. SWE-agent trajectories record their
    actions as text, so every one of their replies is said without doing by construction."""
    import polars as pl

    from toolkit.compaction.simulator import turns  # imported here: it brings polars and tiktoken

    rows: list[dict[str, object]] = []
    for session in corpus_or_sessions:
        path = session.path()
        runs = turns(path)
        for index, (start, end) in enumerate(runs):
            run = path[start:end]
            said = says_action(reply_text(run))
            called = bool(reply_calls(run))
            rows.append({
                "file": session.file, "session": session.id, "client": session.format,
                "model": _model(session, run), "index": index, "position": index / len(runs),
                "said": said, "called": called, "said_without_doing": said and not called,
            })
    schema = {"file": pl.String, "session": pl.String, "client": pl.String, "model": pl.String,
              "index": pl.Int64, "position": pl.Float64, "said": pl.Boolean, "called": pl.Boolean,
              "said_without_doing": pl.Boolean}
    return pl.DataFrame(rows, schema=schema)


def rates(frame: pl.DataFrame) -> pl.DataFrame:
    """Per client and model: replies, how many said they acted, how many said so with no call, that
    rate, and the rate over the first and the second half of each session (does saying without doing
    grow as the history fills with it?)."""
    import polars as pl

    sw = pl.col("said_without_doing")
    first = pl.col("position") < 0.5
    return (
        frame.group_by("client", "model")
        .agg(
            pl.len().alias("replies"),
            pl.col("said").sum().alias("said"),
            sw.sum().alias("said_without_doing"),
            sw.mean().alias("rate"),
            sw.filter(first).mean().alias("rate_first_half"),
            sw.filter(~first).mean().alias("rate_second_half"),
        )
        .sort("client", "model")
    )


def rates_chart(frame: pl.DataFrame) -> alt.Chart:
    """Said-without-doing rate per client and model, first half of sessions beside the second."""
    import altair as alt
    import polars as pl

    table = rates(frame).with_columns(pl.concat_str("client", pl.lit(" · "), "model").alias("who"))
    long = table.unpivot(index=["who", "replies"], on=["rate_first_half", "rate_second_half"],
                         variable_name="half", value_name="share").with_columns(
        pl.col("half").str.replace("rate_", "").str.replace("_half", " half"))
    chart: alt.Chart = alt.Chart(long).mark_bar().encode(
        x=alt.X("share:Q", title="replies that say they act without a call", axis=alt.Axis(format="%")),
        y=alt.Y("half:N", title=None),
        row=alt.Row("who:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left", labelLimit=260)),
        color=alt.Color("half:N", title="part of session"),
        tooltip=["who", "half", alt.Tooltip("share:Q", format=".1%"), "replies"],
    ).properties(title="Saying without doing, by client and model", width=380, height=36)
    return chart
