package report

import (
	"errors"
	"slices"
	"testing"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// The setup's description in the JSON outputs: the data with its splits, the built-in
// model with its classes, the columns with their inputs, and the While loops' state.
func TestSetupJSON(t *testing.T) {
	s := pipelinetest.WBC(t)
	d := DatasetJSON(s)
	if d["name"] != s.Data.Name || d["rows"] != s.Data.Rows() || d["train_rows"].(int)+d["test_rows"].(int) != s.Data.Rows() || d["sha256"] == "" {
		t.Errorf("dataset %v; want %s's %d rows, split, with its checksum", d, s.Data.Name, s.Data.Rows())
	}
	if c := d["constant_columns"].([]string); c == nil || len(c) != len(s.Data.Constant) {
		t.Errorf("constant columns %#v; want %v, never null", c, s.Data.Constant)
	}
	m := ModelJSON(s)
	if cc, ok := m["classifier"].(classifier.Config); m["kind"] != "built-in" || !ok || !slices.Equal(cc.Hidden, s.Classifier.Config.Hidden) || !slices.Equal(m["classes"].([]string), s.ModelCheck.Classes) || m["features"] != s.Data.NumFeatures() {
		t.Errorf("model %v; want the built-in classifier with its configuration, classes and %d features", m, s.Data.NumFeatures())
	}
	cols := []data.Column{
		{Name: "age", Type: data.Integer, Start: 0, Width: 1},
		{Name: "housing", Type: data.Categorical, Levels: []string{"own", "rent"}, Start: 1, Width: 2},
	}
	c := ColumnsJSON(cols)
	if c[0]["inputs"] != [2]int{0, 1} || c[0]["levels"] != nil || c[1]["inputs"] != [2]int{1, 3} || !slices.Equal(c[1]["levels"].([]string), cols[1].Levels) || c[1]["type"] != data.Categorical {
		t.Errorf("columns %v; want age on input 0, housing on inputs 1 and 2 with its levels", c)
	}
	if got := WhileLoopsJSON(backend.Info{}); got != "ok" {
		t.Errorf("While loops that run: %q; want ok", got)
	}
	if got := WhileLoopsJSON(backend.Info{Loops: errors.New("no While")}); got != "no While" {
		t.Errorf("While loops that do not run: %q; want why", got)
	}
}
