package gonbext

import (
	"strings"
	"testing"
)

// Tune's grid has, per control, its label for the control, the control's box and (for the
// sliders) its value's span, then the Done button's box; names are escaped as HTML.
func TestTuneLayout(t *testing.T) {
	var b strings.Builder
	rows := []tuneRow{{ID: "quce-lambda1-7", Label: "λ1 (class)", Value: true, Done: "quce-done-box-7"}, {ID: "quce-instance-7", Label: "a<b", Done: "quce-done-box-7"}}
	if err := tuneLayout.Execute(&b, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<label for="quce-lambda1-7">λ1 (class)</label><span id="quce-lambda1-7-box"></span><span id="quce-lambda1-7-val"></span>`,
		`<label for="quce-instance-7">a&lt;b</label><span id="quce-instance-7-box"></span><span></span>`,
		`</div><div id="quce-done-box-7"></div>`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the layout lacks %s:\n%s", want, b.String())
		}
	}
}
