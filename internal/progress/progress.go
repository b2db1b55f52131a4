// Package progress shows how far a long job is and how long it has left, from the steps its
// searches report (quce.Settings.Progress: the steps done and the steps of the search) and
// the programs they compile (quce.Settings.OnCompile).
//
// A job may run several searches one after another, each counting its steps from 0 again
// (automatic λ: the grid candidates, then searches of fewer rows that refine them; eval: one
// per method). A Tracker counts them as searches of the current phase, and estimates the
// time left in the search that is running from its own pace so far: the steps left at the
// rate of the steps done since it began, the time spent compiling left out (a program
// compiles once, at its first execution, in seconds on XLA, so that a pace with it would
// err long). Nothing can be estimated before a search runs: its pace depends on the
// backend, the engine, the batch size and the machine. It is measured on the search's first
// executions, before the bulk of the job runs: a job walked in units of rows (many paths or
// many rows) reports after the first stretch of its first unit, a small part of the job.
// What it cannot know are the searches that follow (automatic λ runs a refining search only
// for the rows that still need one), so the estimate is the running search's. Before a
// search, Size says how large a job is, which is known from its settings. A Line shows a
// Tracker's status on a terminal or in a log.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/quce-go/quce/quce"
)

// Tracker follows the searches of a job. The zero value is ready, with the wall clock. Its
// methods are for one goroutine, the one that reports the steps, but Compiled, which may be
// called from any (Settings.OnCompile comes from the goroutine that compiled).
type Tracker struct {
	Now func() time.Time // the clock; nil: time.Now

	phase       string    // what the searches that follow do ("" for none said)
	searches    int       // at most this many searches in the phase; 0 when not known
	search      int       // the search running, from 1; 0 before the first report
	reports     int       // the running search's reports
	began       time.Time // when the running search began
	step, steps int
	compiled    time.Duration // the running search's time spent compiling, out of its pace
	announced   bool          // the running search was announced as long (Announce)

	mu         sync.Mutex    // guards the three below, which Compiled reads or writes
	last       time.Time     // the last report or Phase: where a search that starts began
	pending    time.Duration // compiling since last, not yet in compiled
	compiledTo time.Time     // when the last compile reported ended
}

// Phase names the searches that follow (at most searches of them, 0 if not known), counts
// them from 1 again, and says that the first begins now.
func (t *Tracker) Phase(name string, searches int) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.phase, t.searches, t.search, t.step, t.steps, t.last, t.pending = name, searches, 0, 0, 0, now, 0
}

// Compiled records that a program has just been compiled, in seconds: time that the pace
// of the running search leaves out. Only the compiling since the last report (or Phase)
// counts, and compiles that overlap (two shards compiling programs of two sizes) count once.
func (t *Tracker) Compiled(seconds float64) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	from := now.Add(-time.Duration(seconds * float64(time.Second)))
	for _, not := range []time.Time{t.last, t.compiledTo} {
		if from.Before(not) {
			from = not
		}
	}
	if now.After(from) {
		t.pending += now.Sub(from)
	}
	t.compiledTo = now
}

// Update records that step of steps are done. A report of fewer steps than the last, or of
// another number of steps, starts the next search, which began at the report before (the
// end of the search before it) or the Phase call; a search's first report comes after some
// of its steps. It reports whether a search started.
func (t *Tracker) Update(step, steps int) (started bool) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.search == 0 || step < t.step || steps != t.steps || t.Done() {
		t.search++
		t.began, t.reports, t.compiled, t.announced, started = t.last, 0, 0, false, true
		if t.began.IsZero() {
			t.began = now
		}
	}
	t.step, t.steps, t.last = step, steps, now
	t.reports++
	t.compiled += t.pending
	t.pending = 0
	return started
}

// Elapsed is the time since the running search began.
func (t *Tracker) Elapsed() time.Duration { return t.now().Sub(t.began) }

// Left is the estimated time left in the running search: its steps left at the pace of its
// steps done, its compiling left out; none before a step is done.
func (t *Tracker) Left() (time.Duration, bool) {
	if t.step <= 0 || t.steps <= 0 {
		return 0, false
	}
	return time.Duration(float64(t.ran()) * float64(t.steps-t.step) / float64(t.step)), true
}

// ran is the time the running search has run, its compiling left out.
func (t *Tracker) ran() time.Duration { return max(0, t.Elapsed()-t.compiled) }

// Announce is the line that says that the running search is long, once per search: at its
// first report whose estimate is over Long, from its second report on; "" otherwise. The
// first report's pace is measured on one execution, which also pays what no later one
// does and the compile time does not cover (the rows' setup, the first touches of their
// memory), so that it can err long; from the second, an execution that paid none of it is
// in the pace. That waits one execution more: about 2 s for a unit of 2048 rows on two
// cores of the pure-Go backend, a small part of a job that is long.
func (t *Tracker) Announce() string {
	left, ok := t.Left()
	if !ok || t.announced || t.reports < 2 || left <= Long {
		return ""
	}
	t.announced = true
	then := ""
	switch more := t.searches - t.search; {
	case t.searches == 0:
		then = "; more searches may follow"
	case more == 1:
		then = "; at most 1 more search follows"
	case more > 1:
		then = fmt.Sprintf("; at most %d more searches follow", more)
	}
	what := "job"
	if then != "" {
		what = "search"
	}
	return fmt.Sprintf("%s: this %s will take %s more, estimated at the pace of its first %d of %d steps (%s, compiling left out)%s",
		t.What(), what, About(left), t.step, t.steps, t.ran().Round(100*time.Millisecond), then)
}

// Done reports whether the running search has done all its steps.
func (t *Tracker) Done() bool { return t.steps > 0 && t.step >= t.steps }

// Status is the one line that says where the job is, the time left first: "about 10 s
// left, step 300 of 350 (86%): automatic λ, search 2 of at most 4".
func (t *Tracker) Status() string {
	s := fmt.Sprintf("step %d of %d (%d%%)", t.step, t.steps, 100*t.step/max(t.steps, 1))
	if left, ok := t.Left(); ok {
		s = About(left) + " left, " + s
	}
	return s + ": " + t.What()
}

// What names the running search: its phase, and its number where there are several.
func (t *Tracker) What() string {
	what := t.phase
	if what == "" {
		what = "searching"
	}
	switch {
	case t.searches > 1:
		what += fmt.Sprintf(", search %d of at most %d", t.search, t.searches)
	case t.search > 1:
		what += fmt.Sprintf(", search %d", t.search)
	}
	return what
}

func (t *Tracker) now() time.Time {
	if t.Now == nil {
		return time.Now()
	}
	return t.Now()
}

// About is a duration as a person reads an estimate: "about 40 s", "about 15 min", "about
// 2 h 5 min".
func About(d time.Duration) string {
	switch s := d.Seconds(); {
	case s < 10:
		return "a few seconds"
	case s < 90:
		return fmt.Sprintf("about %d s", int(s+2.5)/5*5)
	case s < 90*60:
		return fmt.Sprintf("about %d min", int(s/60+0.5))
	default:
		m := int(s/60 + 0.5)
		return fmt.Sprintf("about %d h %d min", m/60, m%60)
	}
}

// Settings say how a Line shows the status.
const (
	// Every is how often a Line writes its status to a log (not a terminal).
	Every = 10 * time.Second
	// Redraw is how often, at most, a Line redraws its status on a terminal.
	Redraw = 200 * time.Millisecond
	// Long is the estimate from which a search is announced as long.
	Long = time.Minute
	// LargeSteps and LargeMemory are the size from which Size says how large a job is:
	// the steps of all its searches (ten million took about 40 s on two cores of the
	// pure-Go backend, W-BC's 30 inputs), or the memory it needs.
	LargeSteps  = 10_000_000
	LargeMemory = 1 << 30
	// Width is the most characters of a status drawn on a terminal, so that it stays on
	// one line of a terminal 80 wide (a wrapped line would not be redrawn in place).
	Width = 79
)

// Line writes a Tracker's status to w as the searches go: on a terminal, one line redrawn
// in place (\r); in a log, a line every Every. Once a search's estimate says that it has
// more than Long left (Tracker.Announce), a line says so, kept in both. Write writes other
// text (a command's messages) to w, clearing a drawn status first, so the two never mix. Its
// methods may be called from several goroutines, and on a nil Line do nothing.
type Line struct {
	Tracker
	w        io.Writer
	terminal bool
	mu       sync.Mutex
	drawn    bool      // a status is on the terminal's last line
	shown    time.Time // when the status was last written
}

// NewLine is a Line writing to w, a terminal or not.
func NewLine(w io.Writer, terminal bool) *Line { return &Line{w: w, terminal: terminal} }

// ForWriter is a Line writing to w, redrawn in place when w is a terminal.
func ForWriter(w io.Writer) *Line {
	f, ok := w.(*os.File)
	if !ok {
		return NewLine(w, false)
	}
	st, err := f.Stat()
	return NewLine(w, err == nil && st.Mode()&os.ModeCharDevice != 0)
}

// Size is the line that says how large a job is before it starts, where it is large (at
// least LargeSteps steps over its searches or LargeMemory of memory); "" otherwise.
func Size(s quce.JobSize) string {
	if s.Searches()*int64(s.Steps) < LargeSteps && s.Memory < LargeMemory {
		return ""
	}
	return "a large job: " + s.String()
}

// Searches names the searches with which cfg explains rows, in chunks of chunk rows (0:
// all at once): a fixed-λ search per chunk, or, per chunk, automatic λ's search of the grid
// candidates, one of all the steps (for the rows with no valid candidate) and at most
// Auto.Rounds refining ones. It returns the name and the most searches, for Line.Phase.
func Searches(cfg quce.Config, rows, chunk int) (name string, searches int) {
	chunks := 1
	if chunk > 0 {
		chunks = (rows + chunk - 1) / chunk
	}
	if cfg.Auto == nil {
		return "explaining", chunks
	}
	per := 1 + cfg.Auto.Rounds
	if cfg.Auto.Steps < 1 {
		per++
	}
	return "automatic λ", chunks * per
}

// ProgressFunc is Progress for quce.Settings.Progress; nil for a nil Line.
func (l *Line) ProgressFunc() func(step, steps int) {
	if l == nil {
		return nil
	}
	return l.Progress
}

// Progress is quce.Settings.Progress: step of steps are done.
func (l *Line) Progress(step, steps int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Update(step, steps) {
		l.shown = l.began
	}
	if long := l.Announce(); long != "" {
		l.clear()
		fmt.Fprintln(l.w, long)
	}
	switch now := l.now(); {
	case l.terminal && l.Done():
		l.clear()
	case l.terminal && (now.Sub(l.shown) >= Redraw || !l.drawn):
		l.clear()
		fmt.Fprint(l.w, clip(l.Status(), Width))
		l.drawn, l.shown = true, now
	case !l.terminal && now.Sub(l.shown) >= Every && !l.Done():
		fmt.Fprintln(l.w, l.Status())
		l.shown = now
	}
}

// Compiled is quce.Settings.OnCompile's seconds (see Tracker.Compiled); a nil Line does
// nothing.
func (l *Line) Compiled(seconds float64) {
	if l == nil {
		return
	}
	l.Tracker.Compiled(seconds)
}

// Phase names the searches that follow (see Tracker.Phase).
func (l *Line) Phase(name string, searches int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Tracker.Phase(name, searches)
}

// Write writes p to w, after clearing a drawn status.
func (l *Line) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clear()
	return l.w.Write(p)
}

// clip is s cut to n characters, the last an ellipsis.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// clear erases a drawn status (with mu held).
func (l *Line) clear() {
	if l.drawn {
		fmt.Fprint(l.w, "\r\033[K")
		l.drawn = false
	}
}
