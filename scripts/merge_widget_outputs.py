#!/usr/bin/python3
"""Copies the outputs of the widget cells (tagged `interactive`) from a notebook saved in the
browser test into the committed notebook (test-browser.sh --update).

The headless run (test-notebooks.sh) drops those cells, so their outputs can only come from a live
browser: scripts/browser/slider_test.js moves the slider, clicks "Done" (gonbext.Tune then leaves
a static copy of its last figures in the cell), saves the notebook through the page and writes it
as <name>_saved.ipynb. Cells are matched by their source; every interactive cell of the committed
notebook must be found in the saved one with at least one figure in its outputs. Only those cells'
outputs and execution counts change; everything else in the committed notebook is kept.

Two kinds of output are left out: empty HTML outputs (progress lines, cleared when done), and a
live view that a later output repeats as its static copy (an HTML output that ends with a later
output's whole HTML: gonbext.Tune's redrawn area, which "Done" copies), so the saved cell shows its
last figures once.

Usage: merge_widget_outputs.py committed.ipynb saved.ipynb [tag]
"""
import re
import sys

import nbformat  # Debian's python3-nbformat (comes with jupyter-nbconvert)

HTML_IMAGE = re.compile(r"<svg[\s>]|<img[^>]+src=[\"']data:image/", re.I)


def text_of(v):
    return v if isinstance(v, str) else "".join(v)


def has_image(cell):
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if "image/svg+xml" in data or "image/png" in data or HTML_IMAGE.search(text_of(data.get("text/html", ""))):
            return True
    return False


def html_of(out):
    return text_of(out.get("data", {}).get("text/html", "")) if out.get("output_type") == "display_data" else None


def kept_outputs(outputs):
    kept = []
    for i, out in enumerate(outputs):
        h = html_of(out)
        if h is not None and set(out.get("data", {})) == {"text/html"}:
            if not h.strip():
                continue  # an emptied progress line
            if any(html_of(o) and h != html_of(o) and h.endswith(html_of(o)) for o in outputs[i + 1:]):
                continue  # a live view repeated by a later static copy
        kept.append(out)
    return kept


def main(committed, saved, tag="interactive"):
    orig = nbformat.read(committed, as_version=4)
    new = nbformat.read(saved, as_version=4)
    by_source = {}
    for c in new["cells"]:
        if c.get("cell_type") == "code":
            by_source.setdefault(c.get("source"), c)
    n = 0
    for cell in orig["cells"]:
        if cell.get("cell_type") != "code" or tag not in cell.get("metadata", {}).get("tags", []):
            continue
        ex = by_source.get(cell.get("source"))
        if ex is None:
            sys.exit("merge_widget_outputs: %s has no cell with the source of %s's %s cell %r"
                     % (saved, committed, tag, cell.get("source", "")[:80]))
        if not has_image(ex):
            sys.exit("merge_widget_outputs: the %s cell in %s has no figure among its outputs; "
                     "was \"Done\" clicked?" % (tag, saved))
        cell["outputs"] = [nbformat.from_dict(o) for o in kept_outputs(ex.get("outputs", []))]
        cell["execution_count"] = ex.get("execution_count")
        n += 1
    if n == 0:
        sys.exit("merge_widget_outputs: %s has no code cell tagged %r" % (committed, tag))
    nbformat.validate(orig)
    nbformat.write(orig, committed)
    print("merge_widget_outputs: %d %s cell(s) of %s saved with their browser outputs" % (n, tag, committed))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
