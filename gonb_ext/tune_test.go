package gonbext

import (
	"strings"
	"testing"
)

// Tune's grid has, per control, its label for the control, the control's box and (for the
// sliders) its value's span, by the ids the widgets and redraw use, then the Done button's box.
func TestTuneLayout(t *testing.T) {
	tu := &tuner{ids: func(name string) string { return "quce-" + name + "-7" }}
	html, err := tu.layout()
	if err != nil {
		t.Fatal(err)
	}
	// Every box a widget is appended to (newTuner) and every value box redraw writes to
	// exist, by the ids those use.
	for _, l := range tuneLabels {
		want := []string{`<label for="` + tu.ids(l[0]) + `">`, `<span id="` + tu.ids(l[0]+"-box") + `"></span>`}
		if l[0] != "instance" {
			want = append(want, `<span id="`+tu.ids(l[0]+"-val")+`"></span>`)
		}
		for _, w := range want {
			if !strings.Contains(html, w) {
				t.Errorf("the layout lacks %s:\n%s", w, html)
			}
		}
	}
	for _, w := range []string{`λ1 (class)</label>`, `<div id="` + tu.ids("done-box") + `"></div>`} {
		if !strings.Contains(html, w) {
			t.Errorf("the layout lacks %s:\n%s", w, html)
		}
	}
}
