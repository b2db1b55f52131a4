package pipeline

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
)

// A user's split is the plan's, and names the cache entry: models trained on one split are
// never loaded for another.
func TestUserSplit(t *testing.T) {
	ds := data.WBC()
	var test []int
	for i := range ds.Rows() {
		if i%4 == 0 {
			test = append(test, i)
		}
	}
	byHand := &data.Partition{By: "hand", Train: complement(ds.Rows(), test), Test: test}
	fromData := data.WBC()
	fromData.Split = &data.Partition{By: "data", Train: byHand.Train, Test: byHand.Test}
	seeded, err := NewPlan(Options{SplitSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{"seeded": cacheKey(seeded.Data, seeded.Options, "b")}
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"Options.Split", Options{Split: byHand}},
		{"Dataset.Split", Options{Data: fromData}},
		{"Options.Split over Dataset.Split", Options{Data: func() *data.Dataset {
			d := data.WBC()
			d.Split = &data.Partition{By: "unused", Train: []int{0}, Test: []int{1}}
			return d
		}(), Split: byHand}},
	} {
		p, err := NewPlan(c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(p.TestIdx, test) || len(p.TrainIdx) != ds.Rows()-len(test) || len(p.XTest) != len(test) {
			t.Errorf("%s: %d training and %d test rows, want the split's %d and %d", c.name, len(p.TrainIdx), len(p.TestIdx), ds.Rows()-len(test), len(test))
		}
		keys[c.name] = cacheKey(p.Data, p.Options, "b")
	}
	if keys["seeded"] == keys["Options.Split"] || keys["Options.Split"] != keys["Dataset.Split"] || keys["Dataset.Split"] != keys["Options.Split over Dataset.Split"] {
		t.Errorf("cache keys %v: want the seeded split's apart, the same rows' the same", keys)
	}
	other := &data.Partition{By: "hand", Train: complement(ds.Rows(), test[1:]), Test: test[1:]}
	if p, _ := NewPlan(Options{Split: other}); cacheKey(p.Data, p.Options, "b") == keys["Options.Split"] {
		t.Errorf("two splits share the cache key %s", keys["Options.Split"])
	}
	if _, err := NewPlan(Options{Split: &data.Partition{By: "hand", Train: []int{0}, Test: []int{1}}}); err == nil || !strings.Contains(err.Error(), "pipeline.Options.Split: ") || !strings.Contains(err.Error(), "puts 2 of the 569 rows") {
		t.Errorf("a split of 2 rows: %v", err)
	}
}

// complement is the rows 0..n-1 not in idx (sorted).
func complement(n int, idx []int) []int {
	in := map[int]bool{}
	for _, i := range idx {
		in[i] = true
	}
	var out []int
	for i := range n {
		if !in[i] {
			out = append(out, i)
		}
	}
	return out
}

func TestFileID(t *testing.T) {
	path := t.TempDir() + "/m.onnx"
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The SHA-256 of "abc".
	if id, err := FileID(path); err != nil || id != path+" sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("FileID: %q, %v", id, err)
	}
	if _, err := FileID(path + ".missing"); err == nil {
		t.Error("FileID of a missing file: no error")
	}
}
