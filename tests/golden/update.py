"""Regenerate the expected output of golden cases: ``python -m tests.golden.update [case ...]``.

With no arguments every case is regenerated. Stale files in ``expected/`` are deleted.
A case whose generation fails is reported and left as it was; the exit code is then 1.
"""

from __future__ import annotations

import sys
import traceback

from generator.errors import ApismithError
from tests.golden.harness import case_names, expected_files, generate_case, write_expected


def main(argv: list[str]) -> int:
    known = case_names()
    unknown = [name for name in argv if name not in known]
    if unknown:
        print(
            f"unknown golden case(s): {', '.join(unknown)}; cases: {', '.join(known)}",
            file=sys.stderr,
        )
        return 2
    failed: list[str] = []
    for case in argv or known:
        try:
            generated = generate_case(case)
        except ApismithError as exc:
            print(f"{case}: FAILED: {exc}", file=sys.stderr)
            failed.append(case)
            continue
        except Exception:  # noqa: BLE001 - report every case, then fail
            print(f"{case}: FAILED with a traceback:", file=sys.stderr)
            traceback.print_exc()
            failed.append(case)
            continue
        changed = write_expected(case, expected_files(generated))
        what = f"updated {', '.join(changed)}" if changed else "unchanged"
        print(f"{case}: {what} ({len(generated.diagnostics)} diagnostics)")
    if failed:
        print(f"{len(failed)} case(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
