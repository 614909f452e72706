"""A commit checked out into a temporary git worktree, for the scripts that compare it with the
work tree (``compare_commits.py``, ``bench_compile.py --ref``)."""

import contextlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def ref_worktree(ref: str, script: str) -> Iterator[tuple[str, Path, Path]]:
    """(the commit's short hash, its worktree, a scratch folder), all removed afterwards.

    Exits with one line naming ``script`` when ``ref`` is not a commit of this repository."""
    rev = subprocess.run(
        ["git", "rev-parse", "--short", f"{ref}^{{commit}}"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if rev.returncode != 0:
        sys.exit(f"{script}: --ref {ref} is not a commit of this repository")
    short = rev.stdout.strip()
    with tempfile.TemporaryDirectory(prefix=f"nmcs_{Path(script).stem}_") as tmp:
        tree = Path(tmp) / f"ref_{short}"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "--quiet", str(tree), short],
            cwd=REPO,
            check=True,
        )
        try:
            yield short, tree, Path(tmp)
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(tree)], cwd=REPO, check=False
            )
