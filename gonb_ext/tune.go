package gonbext

import (
	"fmt"
	"html"
	"math"
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
	uid := gonbui.UniqueID()
	ids := func(name string) string { return "quce-" + name + "-" + uid }
	gonbui.DisplayHTML(fmt.Sprintf(`<div style="display:grid;grid-template-columns:max-content max-content max-content;gap:2px 12px;align-items:center">
<label for=%q>λ1 (class)</label><span id=%q></span><span id=%q></span>
<label for=%q>λ2 (proximity)</label><span id=%q></span><span id=%q></span>
<label for=%q>λ3 (uncertainty)</label><span id=%q></span><span id=%q></span>
<label for=%q>learning rate</label><span id=%q></span><span id=%q></span>
<label for=%q>steps</label><span id=%q></span><span id=%q></span>
<label for=%q>instance</label><span id=%q></span><span></span>
</div><div id=%q></div>`,
		ids("lambda1"), ids("lambda1-box"), ids("lambda1-val"),
		ids("lambda2"), ids("lambda2-box"), ids("lambda2-val"),
		ids("lambda3"), ids("lambda3-box"), ids("lambda3-val"),
		ids("lr"), ids("lr-box"), ids("lr-val"),
		ids("steps"), ids("steps-box"), ids("steps-val"),
		ids("instance"), ids("instance-box"), ids("done-box")))
	gonbui.Sync()
	l1 := widgets.Slider(1, sliderMax, SliderPosition(cfg.Lambda1)).WithHtmlId(ids("lambda1")).AppendTo(ids("lambda1-box")).Done()
	l2 := widgets.Slider(0, sliderMax, SliderPosition(cfg.Lambda2)).WithHtmlId(ids("lambda2")).AppendTo(ids("lambda2-box")).Done()
	l3 := widgets.Slider(0, sliderMax, SliderPosition(cfg.Lambda3)).WithHtmlId(ids("lambda3")).AppendTo(ids("lambda3-box")).Done()
	lr := widgets.Slider(1, sliderUnity, SliderPosition(cfg.LearningRate)).WithHtmlId(ids("lr")).AppendTo(ids("lr-box")).Done()
	steps := widgets.Slider(10, 2000, cfg.Steps).WithHtmlId(ids("steps")).AppendTo(ids("steps-box")).Done()
	names := rowNames(s, rows)
	inst := widgets.Select(names).WithHtmlId(ids("instance")).AppendTo(ids("instance-box")).Done()
	done := widgets.Button("Done").AppendTo(ids("done-box")).Done()

	// The values come from the Listen channels, not from Value(): gonbui delivers a change
	// to the widget and to the channel in separate goroutines, so Value() can be stale.
	controls := []struct {
		name  string
		c     <-chan int
		value *atomic.Int64
	}{
		{"lambda1", l1.Listen().LatestOnly().C, newValue(l1.Value())},
		{"lambda2", l2.Listen().LatestOnly().C, newValue(l2.Value())},
		{"lambda3", l3.Listen().LatestOnly().C, newValue(l3.Value())},
		{"lr", lr.Listen().LatestOnly().C, newValue(lr.Value())},
		{"steps", steps.Listen().LatestOnly().C, newValue(steps.Value())},
		{"instance", inst.Listen().LatestOnly().C, newValue(inst.Value())},
	}
	changes := make(chan struct{}, 1)
	for _, ctl := range controls {
		go func() {
			for v := range ctl.c {
				ctl.value.Store(int64(v))
				select {
				case changes <- struct{}{}:
				default:
				}
			}
		}()
	}
	value := func(i int) int { return int(controls[i].value.Load()) }
	plotID := ids("plot")
	var last, settings string
	redraw := func() {
		c := cfg
		c.Lambda1, c.Lambda2, c.Lambda3 = SliderValue(value(0)), SliderValue(value(1)), SliderValue(value(2))
		c.LearningRate, c.Steps = SliderValue(value(3)), value(4)
		for i, v := range []string{fmt.Sprintf("%.3g", c.Lambda1), fmt.Sprintf("%.3g", c.Lambda2),
			fmt.Sprintf("%.3g", c.Lambda3), fmt.Sprintf("%.3g", c.LearningRate), fmt.Sprint(c.Steps)} {
			dom.SetInnerText(ids(controls[i].name+"-val"), v)
		}
		row := min(max(value(5), 0), len(rows)-1)
		settings = fmt.Sprintf("λ = (%.3g, %.3g, %.3g), learning rate %.3g, %d steps, %s", c.Lambda1, c.Lambda2, c.Lambda3,
			c.LearningRate, c.Steps, names[row])
		t0 := time.Now()
		ex, err := s.Explainer.Explain(Context, c, []quce.Query{s.Query(rows[row])})
		if err == nil {
			last, err = ExplanationHTML(s, ex[0], plots.Options{TopK: 10})
		}
		if err != nil {
			gonbui.UpdateHTML(plotID, "<p><b>Error:</b> "+html.EscapeString(err.Error())+"</p>")
		} else {
			gonbui.UpdateHTML(plotID, fmt.Sprintf("<p><small>updated in %.2f s</small></p>%s", time.Since(t0).Seconds(), last))
		}
		gonbui.Sync()
	}
	redraw()
	doneC := done.Listen().C
	idle := time.NewTimer(timeout)
	defer idle.Stop()
	// finish replaces the live figures by a static copy captioned with the settings that made
	// them, so the saved notebook shows them once and says how they were made.
	finish := func() error {
		gonbui.UpdateHTML(plotID, "")
		return display("tune", "<p><small>Last settings: "+html.EscapeString(settings)+"</small></p>"+last)
	}
	for {
		select {
		case <-changes:
			redraw()
			idle.Reset(timeout)
		case <-doneC:
			return finish()
		case <-idle.C:
			return finish()
		case <-Context.Done():
			return Context.Err()
		}
	}
}

func newValue(v int) *atomic.Int64 {
	a := &atomic.Int64{}
	a.Store(int64(v))
	return a
}
