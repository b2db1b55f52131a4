// Package gonbext is the notebook front door of QUCE: a handful of flat functions that
// compose the pipeline, the explainer, the evaluation and the plots into cell outputs, in the
// style of GoNB's gonbui (DisplayHTML, DisplaySVG).
//
//	s, _ := gonbext.Prepare(pipeline.Options{})          // trains or loads, progress in the cell
//	ex, _ := gonbext.Explain(s, quce.DefaultConfig(), s.XTest[:5])
//	gonbext.ShowExplanation(s, ex[0])                    // Figure 1, the path, the changes
//	gonbext.Tune(s, s.XTest[:5], quce.DefaultConfig())   // λ sliders that redraw in place
//
// Every Show function returns an error instead of drawing a broken picture. Outside a GoNB
// kernel (a plain Go program, a test) nothing is displayed: the Show functions still build
// their outputs, so they report errors the same way, and when the environment variable
// QUCE_OUTPUT_DIR names a folder they write each output there as an HTML file.
package gonbext

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/quce-go/quce/internal/atomicfile"
)

// InNotebook reports whether the program runs inside a GoNB kernel.
func InNotebook() bool { return gonbui.IsNotebook }

var outputCount atomic.Int64

// display shows an HTML fragment in the cell (a no-op outside a notebook, or a file in
// $QUCE_OUTPUT_DIR). name labels the file.
func display(name, fragment string) error {
	if gonbui.IsNotebook {
		gonbui.DisplayHTML(fragment)
		gonbui.Sync()
		return gonbui.Error()
	}
	dir := os.Getenv("QUCE_OUTPUT_DIR")
	if dir == "" {
		return nil
	}
	n := outputCount.Add(1)
	path := filepath.Join(dir, fmt.Sprintf("%03d-%s.html", n, name))
	return atomicfile.WriteFile(path, []byte("<!doctype html><meta charset=utf-8>\n"+fragment))
}

// svgFragment strips the XML prolog so an SVG can sit inside HTML.
func svgFragment(svg []byte) string {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return "<div>" + s + "</div>"
}

// progress shows one line in the cell that is updated in place, not appended to.
type progress struct{ id string }

func newProgress() *progress {
	if !gonbui.IsNotebook {
		return &progress{}
	}
	return &progress{id: "quce-progress-" + gonbui.UniqueID()}
}

func (p *progress) set(format string, args ...any) {
	if p.id == "" {
		return
	}
	gonbui.UpdateHTML(p.id, "<code>"+html.EscapeString(fmt.Sprintf(format, args...))+"</code>")
}

// done erases the transient line.
func (p *progress) done() {
	if p.id == "" {
		return
	}
	gonbui.UpdateHTML(p.id, "")
	gonbui.Sync()
}

// Context is the context the helpers run under. Interrupting a GoNB cell sends SIGINT to
// the cell's program, which stops it; explanations also stop between steps when it is
// cancelled.
var Context = context.Background()
