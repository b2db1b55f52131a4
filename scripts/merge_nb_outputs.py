#!/usr/bin/python3
"""Writes the outputs of an executed notebook back into the committed one (test-notebooks.sh --update).

The executed copy lacks the cells tagged `interactive` (dropped before the headless run), so cells
are matched by cell id (nbformat >= 4.5), else in order skipping the interactive cells. Interactive
cells keep whatever the committed notebook had. nbclient's per-cell timing metadata is dropped so
that re-running does not change the file needlessly.

Usage: merge_nb_outputs.py committed.ipynb executed.ipynb [tag]
"""
import sys

import nbformat  # Debian's python3-nbformat (comes with jupyter-nbconvert)


def main(committed, executed, tag="interactive"):
    orig = nbformat.read(committed, as_version=4)
    done = nbformat.read(executed, as_version=4)
    by_id = {c["id"]: c for c in done["cells"] if "id" in c}
    kept = [c for c in orig["cells"] if tag not in c.get("metadata", {}).get("tags", [])]
    use_ids = all(c.get("id") in by_id for c in kept)
    if not use_ids and len(kept) != len(done["cells"]):
        sys.exit("merge_nb_outputs: %s and %s do not line up (%d vs %d cells)"
                 % (committed, executed, len(kept), len(done["cells"])))
    for cell, ex in zip(kept, [by_id[c["id"]] for c in kept] if use_ids else done["cells"]):
        if ex.get("cell_type") != cell.get("cell_type") or ex.get("source") != cell.get("source"):
            sys.exit("merge_nb_outputs: %s and %s do not line up (cell %r)" % (committed, executed, cell.get("id")))
        if cell["cell_type"] == "code":
            cell["outputs"] = ex.get("outputs", [])
            cell["execution_count"] = ex.get("execution_count")
            cell.get("metadata", {}).pop("execution", None)
    if "language_info" in done.get("metadata", {}):
        orig.setdefault("metadata", {})["language_info"] = done["metadata"]["language_info"]
    nbformat.validate(orig)
    nbformat.write(orig, committed)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
