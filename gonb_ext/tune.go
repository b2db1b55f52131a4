package gonbext

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

// Slider positions map to weights on a log scale: position p > 0 is 10^((p−40)/10), so 40
// is 1, 30 is 0.1, 20 is 0.01 and 60 is 100; position 0 is exactly 0 (for λ2 and λ3, so the
// Wachter search, λ3 = 0, is one move away).
const (
	sliderMax   = 60
	sliderUnity = 40
)

// SliderValue is the weight at a slider position.
func SliderValue(pos int) float64 {
	if pos <= 0 {
		return 0
	}
	return math.Pow(10, float64(pos-sliderUnity)/10)
}

// SliderPosition is the position whose weight is closest to v (v ≤ 0 gives 0).
func SliderPosition(v float64) int {
	if v <= 0 {
		return 0
	}
	return min(sliderMax, max(1, int(math.Round(10*math.Log10(v)))+sliderUnity))
}

// TuneOptions bound an interactive session.
type TuneOptions struct {
	// Timeout ends the session when no control has moved for this long (0: 30 minutes).
	Timeout time.Duration
}

// Tune shows sliders for λ1, λ2, λ3, the learning rate and the step count, plus an
// instance selector, over the figures of ShowExplanation. Every change re-runs QUCE for the
// selected instance and redraws the figures in place. The "Done" button (or the timeout, or
// interrupting the cell) ends the session and leaves a static copy of the last figures in
// the cell, so the saved notebook shows them. Outside a notebook it returns an error.
func Tune(s *pipeline.Setup, rows [][]float64, cfg quce.Config, opts ...TuneOptions) error {
	if !gonbui.IsNotebook {
		return fmt.Errorf("gonbext: Tune needs a live GoNB notebook; fix: use ShowSweep (static) outside one")
	}
	if len(rows) == 0 {
		return fmt.Errorf("gonbext: Tune needs at least one instance")
	}
	timeout := 30 * time.Minute
	if len(opts) > 0 && opts[0].Timeout > 0 {
		timeout = opts[0].Timeout
	}
	t, err := newTuner(s, rows, cfg)
	if err != nil {
		return err
	}
	t.redraw()
	idle := time.NewTimer(timeout)
	defer idle.Stop()
	for {
		select {
		case <-t.changes:
			t.redraw()
			idle.Reset(timeout)
		case <-t.done:
			return t.finish()
		case <-idle.C:
			return t.finish()
		case <-Context.Done():
			return Context.Err()
		}
	}
}

// tuneLayout is Tune's grid: per control its label, the box the control is put in and the
// box of its value, then the Done button's box.
var tuneLayout = template.Must(template.New("tune").Parse(`<div style="display:grid;grid-template-columns:max-content max-content max-content;gap:2px 12px;align-items:center">
{{range .Rows}}<label for="{{.ID}}">{{.Label}}</label><span id="{{.Box}}"></span><span{{with .Val}} id="{{.}}"{{end}}></span>
{{end}}</div><div id="{{.Done}}"></div>`))

// tuneRow is one control of tuneLayout: the control's id, its label, its box and its value's
// box ("" for a control that shows no value).
type tuneRow struct{ ID, Label, Box, Val string }

// tuneLabels are Tune's controls by name, in the order of tuner.controls, with their labels.
var tuneLabels = [][2]string{{"lambda1", "λ1 (class)"}, {"lambda2", "λ2 (proximity)"}, {"lambda3", "λ3 (uncertainty)"},
	{"lr", "learning rate"}, {"steps", "steps"}, {"instance", "instance"}}

// layout is the HTML of t's controls: the boxes that newTuner puts the widgets in and redraw
// writes the values to.
func (t *tuner) layout() (string, error) {
	rows := make([]tuneRow, len(tuneLabels))
	for i, l := range tuneLabels {
		rows[i] = tuneRow{ID: t.ids(l[0]), Label: l[1], Box: t.ids(l[0] + "-box")}
		if l[0] != "instance" {
			rows[i].Val = t.ids(l[0] + "-val")
		}
	}
	var b strings.Builder
	err := tuneLayout.Execute(&b, struct {
		Rows []tuneRow
		Done string
	}{rows, t.ids("done-box")})
	return b.String(), err
}

// control is one of Tune's controls: its name and its latest value.
type control struct {
	name  string
	value *atomic.Int64
}

// tuner is a running Tune session.
type tuner struct {
	s        *pipeline.Setup
	rows     [][]float64
	names    []string // the rows' names
	cfg      quce.Config
	ids      func(name string) string
	controls []control // lambda1, lambda2, lambda3, lr, steps, instance
	changes  chan struct{}
	done     <-chan int
	// last is the figures last drawn, settings what made them.
	last, settings string
}

// newTuner displays the controls and listens to them.
func newTuner(s *pipeline.Setup, rows [][]float64, cfg quce.Config) (*tuner, error) {
	uid := gonbui.UniqueID()
	t := &tuner{s: s, rows: rows, names: rowNames(s, rows), cfg: cfg, changes: make(chan struct{}, 1),
		ids: func(name string) string { return "quce-" + name + "-" + uid }}
	layout, err := t.layout()
	if err != nil {
		return nil, err
	}
	gonbui.DisplayHTML(layout)
	gonbui.Sync()
	slider := func(name string, lo, hi, at int) *widgets.SliderBuilder {
		return widgets.Slider(lo, hi, at).WithHtmlId(t.ids(name)).AppendTo(t.ids(name + "-box")).Done()
	}
	sliders := []*widgets.SliderBuilder{
		slider("lambda1", 1, sliderMax, SliderPosition(cfg.Lambda1)),
		slider("lambda2", 0, sliderMax, SliderPosition(cfg.Lambda2)),
		slider("lambda3", 0, sliderMax, SliderPosition(cfg.Lambda3)),
		slider("lr", 1, sliderUnity, SliderPosition(cfg.LearningRate)),
		slider("steps", 10, 2000, cfg.Steps),
	}
	inst := widgets.Select(t.names).WithHtmlId(t.ids("instance")).AppendTo(t.ids("instance-box")).Done()
	t.done = widgets.Button("Done").AppendTo(t.ids("done-box")).Done().Listen().C
	// The values come from the Listen channels, not from Value(): gonbui delivers a change
	// to the widget and to the channel in separate goroutines, so Value() can be stale.
	for i, sl := range sliders {
		t.listen(tuneLabels[i][0], sl.Value(), sl.Listen().LatestOnly().C)
	}
	t.listen("instance", inst.Value(), inst.Listen().LatestOnly().C)
	return t, nil
}

// listen adds a control that starts at v and takes its values from c, signalling each
// change on t.changes.
func (t *tuner) listen(name string, v int, c <-chan int) {
	ctl := control{name, newValue(v)}
	t.controls = append(t.controls, ctl)
	go func() {
		for v := range c {
			ctl.value.Store(int64(v))
			select {
			case t.changes <- struct{}{}:
			default:
			}
		}
	}()
}

func (t *tuner) value(i int) int { return int(t.controls[i].value.Load()) }

// redraw explains the selected row with the controls' settings and shows the figures.
func (t *tuner) redraw() {
	c := t.cfg
	c.Lambda1, c.Lambda2, c.Lambda3 = SliderValue(t.value(0)), SliderValue(t.value(1)), SliderValue(t.value(2))
	c.LearningRate, c.Steps = SliderValue(t.value(3)), t.value(4)
	for i, v := range []string{fmt.Sprintf("%.3g", c.Lambda1), fmt.Sprintf("%.3g", c.Lambda2),
		fmt.Sprintf("%.3g", c.Lambda3), fmt.Sprintf("%.3g", c.LearningRate), fmt.Sprint(c.Steps)} {
		dom.SetInnerText(t.ids(t.controls[i].name+"-val"), v)
	}
	row := min(max(t.value(5), 0), len(t.rows)-1)
	t.settings = fmt.Sprintf("λ = (%.3g, %.3g, %.3g), learning rate %.3g, %d steps, %s", c.Lambda1, c.Lambda2, c.Lambda3,
		c.LearningRate, c.Steps, t.names[row])
	t0 := time.Now()
	ex, err := t.s.Explainer.Explain(Context, c, []quce.Query{t.s.Query(t.rows[row])})
	if err == nil {
		t.last, err = ExplanationHTML(t.s, ex[0], plots.Options{TopK: 10})
	}
	if err != nil {
		gonbui.UpdateHTML(t.ids("plot"), "<p><b>Error:</b> "+html.EscapeString(err.Error())+"</p>")
	} else {
		gonbui.UpdateHTML(t.ids("plot"), fmt.Sprintf("<p><small>updated in %.2f s</small></p>%s", time.Since(t0).Seconds(), t.last))
	}
	gonbui.Sync()
}

// finish replaces the live figures by a static copy captioned with the settings that made
// them, so the saved notebook shows them once and says how they were made.
func (t *tuner) finish() error {
	gonbui.UpdateHTML(t.ids("plot"), "")
	return display("tune", "<p><small>Last settings: "+html.EscapeString(t.settings)+"</small></p>"+t.last)
}

func newValue(v int) *atomic.Int64 {
	a := &atomic.Int64{}
	a.Store(int64(v))
	return a
}
