package progress

import (
	"bytes"
	"fmt"
	"io"
	"slices"
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
		{"a log gets a line every 10 s, and the long search is announced at its second report", false, long, "",
			"searching: this search will take about 2 min more, estimated at the pace of its first 60 of 1000 steps (6s, compiling left out); more searches may follow\n" +
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

// event is, after wait seconds, a compile of compile seconds reported (if any), then step
// of steps reported (if steps is not 0).
type event struct {
	wait, compile float64
	step, steps   int
}

// feed feeds events to tr on clk, calling each after each report.
func feed(tr *Tracker, clk *clock, events []event, each func()) {
	for _, e := range events {
		clk.wait(seconds(e.wait))
		if e.compile > 0 {
			tr.Compiled(e.compile)
		}
		if e.steps > 0 {
			tr.Update(e.step, e.steps)
			each()
		}
	}
}

// The time spent compiling is left out of the pace, once each, in the search it falls in.
func TestTrackerLeavesOutCompiling(t *testing.T) {
	for _, c := range []struct {
		name   string
		before float64 // a compile of these seconds reported just before Phase
		events []event
		left   float64 // the estimate after the last report, in seconds
	}{
		{"no compiling", 0, []event{{3, 0, 100, 1000}}, 27},
		{"compiling left out", 0, []event{{3, 2, 100, 1000}}, 9},
		{"compiling between reports", 0, []event{{1, 0, 100, 1000}, {2, 1.5, 200, 1000}}, 6},
		{"a compile before the phase is not the search's", 5, []event{{3, 0, 100, 1000}}, 27},
		{"compiles that overlap count once", 0, []event{{2, 2, 0, 0}, {0, 2, 0, 0}, {1, 0, 100, 1000}}, 9},
		{"a compile counts from the search's start", 0, []event{{2, 0, 1000, 1000}, {1, 2, 100, 1000}, {1, 0, 200, 1000}}, 4},
		{"a finished search's compiling is not the next's", 0, []event{{2, 1.5, 1000, 1000}, {3, 0, 100, 1000}}, 27},
		{"all of it compiling: no time left is known to be spent", 0, []event{{2, 2, 100, 1000}}, 0},
	} {
		clk := newClock()
		tr := Tracker{Now: clk.now}
		if c.before > 0 {
			tr.Compiled(c.before)
		}
		tr.Phase("", 0)
		feed(&tr, clk, c.events, func() {})
		if left, ok := tr.Left(); !ok || left != seconds(c.left) {
			t.Errorf("%s: %v left (%v), want %v s", c.name, left, ok, c.left)
		}
	}
}

// A long search is announced once, at its first report from the second on whose estimate,
// compiling left out, is over Long; a short one never.
func TestAnnounce(t *testing.T) {
	for _, c := range []struct {
		name     string
		phase    string
		searches int
		events   []event
		want     []string // the announcements, each with the report it came at
	}{
		{"a long job, at its second report", "explaining", 1,
			[]event{{1, 0, 10, 1000}, {1, 0, 20, 1000}, {1, 0, 30, 1000}},
			[]string{"2: explaining: this job will take about 2 min more, estimated at the pace of its first 20 of 1000 steps (2s, compiling left out)"}},
		{"a long job that compiled for 9 s, at the report after the compile's", "explaining", 1,
			[]event{{10, 9, 10, 1000}, {1, 0, 20, 1000}},
			[]string{"2: explaining: this job will take about 2 min more, estimated at the pace of its first 20 of 1000 steps (2s, compiling left out)"}},
		{"a short job that compiled for 9 s", "explaining", 1, []event{{10, 9, 100, 1000}, {1, 0, 200, 1000}, {1, 0, 300, 1000}}, nil},
		{"a short job", "explaining", 1, []event{{1, 0, 500, 1000}, {1, 0, 1000, 1000}}, nil},
		{"one report alone does not announce", "explaining", 1, []event{{10, 0, 10, 1000}}, nil},
		{"searches follow: each search once", "automatic λ", 4,
			[]event{{10, 0, 10, 350}, {10, 0, 20, 350}, {10, 0, 30, 350}, {1, 0, 350, 350}, {10, 0, 10, 350}, {10, 0, 20, 350}},
			[]string{
				"2: automatic λ, search 1 of at most 4: this search will take about 6 min more, estimated at the pace of its first 20 of 350 steps (20s, compiling left out); at most 3 more searches follow",
				"6: automatic λ, search 2 of at most 4: this search will take about 6 min more, estimated at the pace of its first 20 of 350 steps (20s, compiling left out); at most 2 more searches follow",
			}},
		{"the last of the searches", "automatic λ", 2,
			[]event{{1, 0, 350, 350}, {10, 0, 10, 350}, {10, 0, 20, 350}},
			[]string{"3: automatic λ, search 2 of at most 2: this job will take about 6 min more, estimated at the pace of its first 20 of 350 steps (20s, compiling left out)"}},
		{"searches not counted", "eval: quce", 0,
			[]event{{10, 0, 10, 350}, {10, 0, 20, 350}},
			[]string{"2: eval: quce: this search will take about 6 min more, estimated at the pace of its first 20 of 350 steps (20s, compiling left out); more searches may follow"}},
	} {
		clk := newClock()
		tr := Tracker{Now: clk.now}
		tr.Phase(c.phase, c.searches)
		var got []string
		n := 0
		feed(&tr, clk, c.events, func() {
			n++
			if a := tr.Announce(); a != "" {
				got = append(got, fmt.Sprintf("%d: %s", n, a))
			}
		})
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// Compiled comes from the goroutine that compiled, while another reports the steps (run
// with -race).
func TestCompiledFromAnotherGoroutine(t *testing.T) {
	var l Line
	l.w = io.Discard
	done := make(chan bool)
	go func() {
		for range 100 {
			l.Compiled(0.001)
		}
		close(done)
	}()
	for i := range 100 {
		l.Progress(i+1, 100)
	}
	<-done
}

// A job is said to be large before it starts when its steps or its memory are.
func TestSize(t *testing.T) {
	for _, c := range []struct {
		name string
		size quce.JobSize
		want string
	}{
		{"small", quce.JobSize{Instances: 5, Paths: 1, Candidates: 1, Steps: 1000, Memory: 300 << 20}, ""},
		{"many searches", quce.JobSize{Instances: 2, Paths: 100000, Candidates: 1, Steps: 1000, Memory: 5 << 30},
			"a large job: 200 000 searches (2 instances × 100 000 paths) of 1000 steps, about 5.0 GB of memory"},
		{"many steps", quce.JobSize{Instances: 1, Paths: 1000, Candidates: 1, Steps: 10000, Memory: 600 << 20},
			"a large job: 1000 searches (1 instance × 1000 paths) of 10 000 steps, about 600 MB of memory"},
		{"just under the steps, but much memory", quce.JobSize{Instances: 1, Paths: 9999, Candidates: 1, Steps: 1000, Memory: LargeMemory},
			"a large job: 9999 searches (1 instance × 9999 paths) of 1000 steps, about 1.0 GB of memory"},
		{"automatic λ", quce.JobSize{Instances: 100, Paths: 50, Candidates: 6, Steps: 350, Memory: 900 << 20},
			"a large job: 30 000 searches (100 instances × 50 paths × 6 candidates of automatic λ) of 350 steps, then searches of fewer rows that refine them, about 900 MB of memory"},
	} {
		if got := Size(c.size); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
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
	l.Compiled(1)
	if l.ProgressFunc() != nil {
		t.Error("a nil Line's ProgressFunc is not nil")
	}
}
