package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/quce-go/quce/quce"
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
		{"no phase", "", 0, []report{{2, 100, 1000}}, "about 20 s left, step 100 of 1000 (10%): searching"},
		{"the pace of the steps done", "", 0, []report{{2, 100, 1000}, {2, 200, 1000}}, "about 15 s left, step 200 of 1000 (20%): searching"},
		{"a second search starts again", "", 0, []report{{5, 1000, 1000}, {1, 10, 100}}, "a few seconds left, step 10 of 100 (10%): searching, search 2"},
		{"another number of steps is another search", "", 0, []report{{5, 300, 350}, {60, 350, 1000}}, "about 2 min left, step 350 of 1000 (35%): searching, search 2"},
		{"phase with its searches", "automatic λ", 4, []report{{30, 350, 350}, {120, 100, 350}}, "about 5 min left, step 100 of 350 (28%): automatic λ, search 2 of at most 4"},
		{"hours", "eval: quce", 1, []report{{3600, 10, 100}}, "about 9 h 0 min left, step 10 of 100 (10%): eval: quce"},
		{"no step done", "", 0, []report{{1, 0, 100}}, "step 0 of 100 (0%): searching"},
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
			"searching: this search will take about 2 min more (60 of its 1000 steps done in 6s)\n" +
				"about 80 s left, step 130 of 1000 (13%): searching\n" +
				"about 65 s left, step 250 of 1000 (25%): searching\n" +
				"about 50 s left, step 380 of 1000 (38%): searching\n"},
		{"a short search in a log says nothing", false, []report{{1, 500, 1000}, {1, 1000, 1000}}, "", ""},
		{"a terminal's line is redrawn, cleared for other text, and at the end", true,
			[]report{{1, 500, 1000}, {0.1, 600, 1000}, {0.3, 700, 1000}, {1, 1000, 1000}}, "note\n",
			"a few seconds left, step 500 of 1000 (50%): searching" + "\r\033[K" + "note\n" +
				"a few seconds left, step 600 of 1000 (60%): searching" +
				"\r\033[K" + "a few seconds left, step 700 of 1000 (70%): searching" +
				"\r\033[K"},
	} {
		if got := run(c.terminal, c.reports, c.log); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestSearches(t *testing.T) {
	fixed, auto := quce.DefaultConfig(), quce.DefaultConfig()
	auto.Auto = quce.DefaultAuto() // 6 candidates, 2 rounds, 0.35 of the steps
	whole := quce.DefaultConfig()
	whole.Auto = quce.DefaultAuto()
	whole.Auto.Steps, whole.Auto.Rounds = 1, 0
	for _, c := range []struct {
		name        string
		cfg         quce.Config
		rows, chunk int
		want        string
		searches    int
	}{
		{"fixed λ", fixed, 100, 0, "explaining", 1},
		{"fixed λ in chunks", fixed, 100, 30, "explaining", 4},
		{"automatic λ", auto, 100, 0, "automatic λ", 4},
		{"automatic λ in chunks", auto, 100, 50, "automatic λ", 8},
		{"automatic λ of all the steps, no rounds", whole, 10, 0, "automatic λ", 1},
	} {
		if name, n := Searches(c.cfg, c.rows, c.chunk); name != c.want || n != c.searches {
			t.Errorf("%s: %q, %d searches; want %q, %d", c.name, name, n, c.want, c.searches)
		}
	}
}

// A status wider than a terminal is cut, so that it is redrawn in place.
func TestLineClipsOnATerminal(t *testing.T) {
	var b bytes.Buffer
	l := NewLine(&b, true)
	l.Phase(strings.Repeat("λ", 100), 0)
	l.Progress(1, 10)
	if got := []rune(b.String()); len(got) != Width || got[Width-1] != '…' {
		t.Errorf("drew %d characters %q, want %d ending in …", len(got), b.String(), Width)
	}
}

// A nil Line, the command's with -q, does nothing.
func TestNilLine(t *testing.T) {
	var l *Line
	l.Progress(1, 2)
	l.Phase("x", 1)
	if l.ProgressFunc() != nil {
		t.Error("a nil Line's ProgressFunc is not nil")
	}
}
