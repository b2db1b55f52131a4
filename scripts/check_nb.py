#!/usr/bin/python3
"""Checks executed notebooks (written by scripts/test-notebooks.sh). A notebook fails when:

  - a cell has an error output (compile error, panic, non-zero exit of the cell program);
  - any output text contains a line `exit status N`: GoNB prints it when a `!cmd` / `!*cmd` /
    `%%bash` shell line fails, and such a failure does NOT mark the cell as failed;
  - stderr shows a Go panic (`panic: ...`), in case it was not turned into an error output;
  - the notebook has no image output at all: image/svg+xml, image/png, or text/html holding an
    `<svg` element or an `<img src="data:image/...">` (gonbui.DisplaySVG sends text/html).

Prints one line per problem, then the cells that took longest (from nbclient's timing metadata).

With --saved-widgets it checks committed notebooks instead: a widget cell (tagged `interactive`,
so the headless run drops it) that calls gonbext.Tune must be saved with its last figures (an
image output, as above), which only a browser run can produce: scripts/test-browser.sh --update.

Usage: check_nb.py [--quiet] executed.ipynb [...]     exit 1 if any notebook has a problem.
       check_nb.py --saved-widgets committed.ipynb [...]
"""
import datetime
import json
import re
import sys

EXIT_STATUS = re.compile(r"^exit status \d+\s*$", re.M)
PANIC = re.compile(r"^panic: ", re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
HTML_IMAGE = re.compile(r"<svg[\s>]|<img[^>]+src=[\"']data:image/", re.I)


def text_of(v):
    return v if isinstance(v, str) else "".join(v)


def parse_time(s):
    try:
        return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        return None


def cell_seconds(cell):
    ex = cell.get("metadata", {}).get("execution", {})
    t0, t1 = parse_time(ex.get("iopub.execute_input")), parse_time(ex.get("shell.execute_reply"))
    return (t1 - t0).total_seconds() if t0 and t1 else None


def first_line(cell):
    for line in text_of(cell.get("source", "")).splitlines():
        line = line.strip()
        if line and not line.startswith("//") and line != "%%":
            return line[:60]
    return ""


def has_image(out):
    if out.get("output_type") not in ("display_data", "execute_result", "update_display_data"):
        return False
    data = out.get("data", {})
    return "image/svg+xml" in data or "image/png" in data or bool(HTML_IMAGE.search(text_of(data.get("text/html", ""))))


TUNE = re.compile(r"\bgonbext\.Tune\(")


def check_saved_widgets(path):
    """Problems of a committed notebook: gonbext.Tune cells saved without a figure."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    problems = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code" or "interactive" not in cell.get("metadata", {}).get("tags", []):
            continue
        if TUNE.search(text_of(cell.get("source", ""))) and not any(has_image(o) for o in cell.get("outputs", [])):
            problems.append("cell %d (%s): the interactive gonbext.Tune cell is saved without its last figures; "
                            "fix: bash scripts/test-browser.sh --update %s" % (i, first_line(cell), path))
    for p in problems:
        print("%s: %s" % (path, p))
    return len(problems)


def check(path, quiet):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    problems, images, timings = [], 0, []
    code_cells = 0
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        code_cells += 1
        where = "cell %d (%s)" % (i, first_line(cell))
        secs = cell_seconds(cell)
        if secs is not None:
            timings.append((secs, where))
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            if kind == "error":
                msg = ANSI.sub("", out.get("evalue", "") or " ".join(out.get("traceback", [])))
                problems.append("%s: error output: %s" % (where, msg.strip()[:800]))
            elif kind == "stream":
                text = ANSI.sub("", text_of(out.get("text", "")))
                m = EXIT_STATUS.search(text)
                if out.get("name") == "stderr" and PANIC.search(text):
                    problems.append("%s: panic on stderr: %s" % (where, text.strip()[:800]))
                elif m:
                    problems.append("%s: shell command failed (%s): ...%s"
                                    % (where, m.group(0).strip(), text[max(0, m.start() - 600):m.start()].strip()))
            elif has_image(out):
                images += 1
    if code_cells and images == 0:
        problems.append("no image output (image/svg+xml, image/png or text/html with <svg>) in the whole notebook")
    for p in problems:
        print("%s: %s" % (path, p))
    if not quiet:
        total = sum(t for t, _ in timings)
        slow = sorted(timings, reverse=True)[:3]
        print("%s: %d code cell(s), %d image output(s), cells took %.1fs; slowest: %s"
              % (path, code_cells, images, total, "; ".join("%.1fs %s" % s for s in slow) or "n/a"))
    return len(problems)


def main(argv):
    quiet = "--quiet" in argv
    saved = "--saved-widgets" in argv
    paths = [a for a in argv if a not in ("--quiet", "--saved-widgets")]
    if not paths:
        print(__doc__)
        return 2
    bad = 0
    for p in paths:
        try:
            bad += check_saved_widgets(p) if saved else check(p, quiet)
        except (OSError, ValueError) as e:
            print("%s: cannot read executed notebook: %s" % (p, e))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
