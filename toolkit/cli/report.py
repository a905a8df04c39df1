"""``toolkit report [--corpus PATH] [-o DIR] [--redact]``: what ``make report`` runs."""

from __future__ import annotations

import argparse

from toolkit.cli.commands import help_for


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from toolkit.report.runner import add_arguments, run

    parser = sub.add_parser("report", help=help_for("report"))
    add_arguments(parser)
    parser.set_defaults(func=run)
