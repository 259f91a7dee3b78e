"""The ``pto-avs`` console script: a thin dispatcher over subcommands.

Each subcommand is a function ``(args) -> int`` registered with ``_register``;
add new ones the same way.

    pto-avs asm 'BSTART.VEC TCVT, U8'      -> 0xd9b19181
    pto-avs disasm 0xd9b19181              -> BSTART.VEC TCVT, U8
"""
from __future__ import annotations

import argparse
import sys

from ..device_model.encoding import assemble, disassemble, raw_instruction


def _asm(args) -> int:
    text = "\n".join(args.text) if args.text else sys.stdin.read()
    try:
        instructions = assemble(text)
    except ValueError as exc:
        print(f"pto-avs asm: {exc}", file=sys.stderr)
        return 2
    for ins in instructions:
        print(f"{ins.word:#06x}" if ins.length == 16 else f"{ins.word:#010x}")
    return 0


def _disasm(args) -> int:
    tokens = " ".join(args.words).replace(",", " ").replace(";", " ").split() if args.words \
        else sys.stdin.read().split()
    for token in tokens:
        try:
            word = int(token, 0)
        except ValueError:
            print(f"pto-avs disasm: {token!r} is not an instruction word: expected an integer 0..0xFFFFFFFF "
                  f"(hexadecimal 0x..., binary 0b..., or decimal), e.g. 0xd9b19181", file=sys.stderr)
            return 2
        try:
            ins = raw_instruction(word)
        except ValueError as exc:
            print(f"pto-avs disasm: {token!r}: {exc}", file=sys.stderr)
            return 2
        print(disassemble(ins.word, ins.length))
    return 0


def _counts(args) -> int:
    """The figures that change as the project grows, computed, so no document types them."""
    from ..contract.loader import PROJECT_PREFIX, VECTORS_DIR, load_paths
    from ..contract.spec_data import load
    from ..device_model.ops import installed, registry  # noqa: F401  (installed: every operation registers)
    from ..plugins.mutants import MUTANTS
    units = load("tile-avs-catalog")["units"]
    spec_tests = {test for unit in units for test in unit["tests"]}
    files = load_paths([VECTORS_DIR])
    cases = [case for loaded in files for case in loaded.cases]
    spec_files = [loaded for loaded in files if not loaded.vector_id.startswith(PROJECT_PREFIX)]
    per_profile = {p: sum(p in case.profiles for case in cases) for p in ("pto-v0", "hw-ieee")}
    print(f"operations modelled: {len(registry.names())} of the catalog's {len(units)}")
    print(f"spec test points with a vector file: {len(spec_tests & {f.vector_id for f in files})}"
          f" of the catalog's {len(spec_tests)}")
    print(f"vector files: {len(files)} ({len(spec_files)} spec test IDs, "
          f"{len(files) - len(spec_files)} {PROJECT_PREFIX}*)")
    print(f"cases: {len(cases)} (pto-v0 {per_profile['pto-v0']}, hw-ieee {per_profile['hw-ieee']})")
    print(f"golden-model items of pytest avs/ (a case once per profile it holds under): "
          f"{sum(per_profile.values())}")
    print(f"mutants: {len(MUTANTS)}")
    return 0


def _compare(args) -> int:
    """``pto-avs compare`` on the cases the suite's selection picks (all of them without one)."""
    from ..contract.case import PROFILES
    from ..contract.loader import VECTORS_DIR
    from ..reports import bringup
    from .campaigns import selection

    if selection.selects(args):
        try:
            picked = selection.collect(args, args.vectors or [VECTORS_DIR], PROFILES)
        except selection.SelectionError as exc:
            print(f"pto-avs compare: {exc}", file=sys.stderr)
            return 2
        if not picked.cases and not picked.vector_errors:
            print("pto-avs compare: the selection holds no case", file=sys.stderr)
            return 2
        args.selected = (picked.cases, picked.vector_errors)
    return bringup.run(args)


def _register(subparsers, name, handler, help_text, configure):
    parser = subparsers.add_parser(name, help=help_text, description=help_text)
    configure(parser)
    parser.set_defaults(handler=handler)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pto-avs", description="PTO ISA architectural validation suite")
    subparsers = parser.add_subparsers(dest="command", required=True)
    _register(subparsers, "asm", _asm,
              "assemble project assembly text (';' or newline separated) to one word per line",
              lambda p: p.add_argument("text", nargs="*", help="assembly text; stdin when omitted"))
    _register(subparsers, "disasm", _disasm,
              "disassemble instruction words (a word below 0x10000 with bit 0 clear is 16-bit)",
              lambda p: p.add_argument("words", nargs="*", help="words, e.g. 0xd9b19181; stdin when omitted"))
    from ..reports import bringup  # the bring-up comparison (reports/bringup.py)
    from .campaigns import selection  # the suite's selection: IDs, --op, --adr, -k, -m
    _register(subparsers, "compare", _compare, bringup.DESCRIPTION,
              lambda p: (bringup.add_arguments(p), selection.add_arguments(p)))
    from .campaigns import exhaustive, fuzz, mutation, sweep  # mutation self-test and campaigns
    _register(subparsers, "mutants", mutation.run, mutation.DESCRIPTION, mutation.add_arguments)
    _register(subparsers, "fuzz", fuzz.run, fuzz.DESCRIPTION, fuzz.add_arguments)
    _register(subparsers, "exhaustive", exhaustive.run, exhaustive.DESCRIPTION, exhaustive.add_arguments)
    _register(subparsers, "sweep", sweep.run, sweep.DESCRIPTION, sweep.add_arguments)
    from . import spec_check  # every shipped pto-v0 case on the executable spec
    _register(subparsers, "spec-check", spec_check.run, spec_check.DESCRIPTION, spec_check.add_arguments)
    from ..reports import coverage, render  # ADR coverage and the Allure 3 HTML report
    _register(subparsers, "coverage", coverage.run, coverage.DESCRIPTION, coverage.add_arguments)
    _register(subparsers, "allure-html", render.run, render.DESCRIPTION, render.add_arguments)
    _register(subparsers, "counts", _counts,
              "print the figures that change as the project grows: operations modelled, spec test "
              "points with a vector, vector files, cases, pytest avs/ items, mutants", lambda p: None)
    return parser


INTERRUPTED = 130  # the shell's status for a command ended by SIGINT


def main(argv=None) -> int:
    """Ctrl-C ends a command with one line, not a traceback: what it wrote before (a ``--record``
    file of spec-check, a report) was written whole, and nothing is half-written."""
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print(f"\npto-avs {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
