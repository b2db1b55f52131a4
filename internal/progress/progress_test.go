package progress

import (
	"bytes"
	"testing"
	"time"
)

// clock is a fake clock that the test moves on.
type clock struct{ t time.Time }

func (c *clock) now() time.Time       { return c.t }
func (c *clock) wait(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// report is one call of Progress after wait.
type report struct {
	wait        float64 // seconds since the call before
	step, steps int
}

func TestTrackerStatus(t *testing.T) {
	for _, c := range []struct {
		name     string
		phase    string
		searches int
		reports  []report
		want     string
	}{
		{"no phase", "", 0, []report{{2, 100, 1000}}, "searching: step 100 of 1000 (10%), about 20 s left"},
		{"the pace of the steps done", "", 0, []report{{2, 100, 1000}, {2, 200, 1000}}, "searching: step 200 of 1000 (20%), about 15 s left"},
		{"a second search starts again", "", 0, []report{{5, 1000, 1000}, {1, 10, 100}}, "searching, search 2: step 10 of 100 (10%), a few seconds left"},
		{"another number of steps is another search", "", 0, []report{{5, 300, 350}, {60, 350, 1000}}, "searching, search 2: step 350 of 1000 (35%), about 2 min left"},
		{"phase with its searches", "automatic λ", 4, []report{{30, 350, 350}, {120, 100, 350}}, "automatic λ, search 2 of at most 4: step 100 of 350 (28%), about 5 min left"},
		{"hours", "eval: quce", 1, []report{{3600, 10, 100}}, "eval: quce: step 10 of 100 (10%), about 9 h 0 min left"},
		{"no step done", "", 0, []report{{1, 0, 100}}, "searching: step 0 of 100 (0%)"},
	} {
		clk := newClock()
		tr := Tracker{Now: clk.now}
		tr.Phase(c.phase, c.searches)
		for _, r := range c.reports {
			clk.wait(seconds(r.wait))
			tr.Update(r.step, r.steps)
		}
		if got := tr.Status(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestAbout(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{{3, "a few seconds"}, {12, "about 10 s"}, {13, "about 15 s"}, {89, "about 90 s"}, {90, "about 2 min"}, {15 * 60, "about 15 min"}, {2*3600 + 5*60, "about 2 h 5 min"}} {
		if got := About(seconds(c.s)); got != c.want {
			t.Errorf("About(%v s) = %q, want %q", c.s, got, c.want)
		}
	}
}

// run feeds reports to a Line on a fake clock and returns what it wrote.
func run(terminal bool, reports []report, log string) string {
	clk := newClock()
	var b bytes.Buffer
	l := NewLine(&b, terminal)
	l.Now = clk.now
	l.Phase("", 0)
	for i, r := range reports {
		clk.wait(seconds(r.wait))
		l.Progress(r.step, r.steps)
		if i == 0 && log != "" {
			l.Write([]byte(log))
		}
	}
	return b.String()
}

func TestLine(t *testing.T) {
	long := []report{{1, 10, 1000}, {5, 60, 1000}, {6, 130, 1000}, {10, 250, 1000}, {10, 380, 1000}}
	for _, c := range []struct {
		name     string
		terminal bool
		reports  []report
		log      string
		want     string
	}{
		{"a log gets a line every 10 s, and the long search is announced after warm-up", false, long, "",
			"this search will take about 2 min more (searching: step 60 of 1000 (6%), about 2 min left)\n" +
				"searching: step 130 of 1000 (13%), about 80 s left\n" +
				"searching: step 250 of 1000 (25%), about 65 s left\n" +
				"searching: step 380 of 1000 (38%), about 50 s left\n"},
		{"a short search in a log says nothing", false, []report{{1, 500, 1000}, {1, 1000, 1000}}, "", ""},
		{"a terminal's line is redrawn, cleared for other text, and at the end", true,
			[]report{{1, 500, 1000}, {0.1, 600, 1000}, {0.3, 700, 1000}, {1, 1000, 1000}}, "note\n",
			"searching: step 500 of 1000 (50%), a few seconds left" + "\r\033[K" + "note\n" +
				"searching: step 600 of 1000 (60%), a few seconds left" +
				"\r\033[K" + "searching: step 700 of 1000 (70%), a few seconds left" +
				"\r\033[K"},
	} {
		if got := run(c.terminal, c.reports, c.log); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// A nil Line, the command's with -q, does nothing.
func TestNilLine(t *testing.T) {
	var l *Line
	l.Progress(1, 2)
	l.Phase("x", 1)
}
