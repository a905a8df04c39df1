"""Corpus-level aggregates over the frames: what the corpus tour tabulates and plots."""

from __future__ import annotations

import polars as pl

from toolkit.record import BLOCK_KINDS


def session_lengths(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per session: messages in the tree and on the path, branch ends, tool calls, images (those
    returned inside tool results too)."""
    calls = frames["tool_calls"].group_by("session_id").agg(pl.len().alias("tool_calls"))
    images = frames["images"].group_by("session_id").agg(pl.len().alias("images"))
    return (frames["sessions"]
            .select("session_id", "format", "file", "messages", "path_messages", "leaves", "model")
            .join(calls, on="session_id", how="left").join(images, on="session_id", how="left")
            .with_columns(pl.col("tool_calls").fill_null(0), pl.col("images").fill_null(0))
            .sort("path_messages", descending=True))


def block_kinds(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Blocks per kind and format, every kind listed even when absent, with the characters each
    kind holds (reasoning share = its characters over all characters)."""
    blocks = frames["blocks"].join(frames["sessions"].select("session_id", "format"), on="session_id")
    counted = blocks.group_by("format", "kind").agg(pl.len().alias("blocks"), pl.col("chars").sum())
    formats = frames["sessions"].select("format").unique()
    grid = formats.join(pl.DataFrame({"kind": list(BLOCK_KINDS)}), how="cross")
    out = (grid.join(counted, on=["format", "kind"], how="left")
           .with_columns(pl.col("blocks").fill_null(0), pl.col("chars").fill_null(0)))
    return out.with_columns(
        (pl.col("chars") / pl.col("chars").sum().over("format")).fill_nan(0.0).alias("char_share")
    ).sort("format", "kind")


def tool_usage(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Calls per bare tool name with error rate and the share left without a result."""
    calls = frames["tool_calls"]
    return (calls.group_by("bare_name")
            .agg(pl.len().alias("calls"),
                 pl.col("is_error").fill_null(False).sum().alias("errors"),
                 (~pl.col("has_result")).sum().alias("unanswered"),
                 pl.col("input_bytes").median().alias("median_input_bytes"),
                 pl.col("result_bytes").median().alias("median_result_bytes"),
                 pl.col("name").unique().sort().alias("recorded_names"))
            .with_columns((pl.col("errors") / pl.col("calls")).alias("error_rate"))
            .sort("calls", descending=True))


def reasoning_share(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per session: characters of reasoning against all characters the session's blocks hold."""
    blocks = frames["blocks"]
    return (blocks.group_by("session_id")
            .agg(pl.col("chars").filter(pl.col("kind") == "reasoning").sum().alias("reasoning_chars"),
                 pl.col("chars").sum().alias("all_chars"),
                 (pl.col("kind") == "reasoning").sum().alias("reasoning_blocks"))
            .with_columns((pl.col("reasoning_chars") / pl.col("all_chars")).fill_nan(0.0).alias("share"))
            .sort("share", descending=True))


def event_counts(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Events by kind and source type (compactions, summaries, errors, client bookkeeping)."""
    return (frames["events"].group_by("kind", "type").agg(pl.len().alias("events"),
                                                          pl.col("session_id").n_unique().alias("sessions"))
            .sort("events", descending=True))


def problem_counts(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Problems per file, with the first reason given for each."""
    return (frames["problems"].group_by("file")
            .agg(pl.len().alias("problems"), pl.col("reason").first().alias("first_reason"))
            .sort("problems", descending=True))
