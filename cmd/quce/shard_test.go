package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// Three shards of a run, merged, are byte for byte the JSON and the CSV one run writes; shards
// of runs with other settings, a shard given twice or a missing shard are refused, naming
// the problem.
func TestShardsMergedEqualOneRun(t *testing.T) {
	modeltest.NeedRowsIndependent(t)
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	quce := func(args ...string) error {
		var stdout, stderr bytes.Buffer
		return run(context.Background(), args, &stdout, &stderr)
	}
	explain := func(steps, shard, name string) {
		t.Helper()
		args := []string{"explain", "-n", "7", "-steps", steps, "-cache", pipelinetest.CacheDir(), "-q", "-json", in(name + ".json"), "-csv", in(name + ".csv")}
		if shard != "" {
			args = append(args, "-shard", shard)
		}
		if err := quce(args...); err != nil {
			t.Fatalf("explain %v: %v", args, err)
		}
	}
	explain("40", "", "one")
	for i := range 3 {
		explain("40", fmt.Sprintf("%d/3", i), fmt.Sprintf("s%d", i))
	}
	explain("41", "1/3", "other")
	// The JSON shards in any order; the CSV ones in shard order.
	if err := quce("merge", "-json", in("m.json"), in("s2.json"), in("s0.json"), in("s1.json")); err != nil {
		t.Fatal(err)
	}
	if err := quce("merge", "-csv", in("m.csv"), in("s0.csv"), in("s1.csv"), in("s2.csv")); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".json", ".csv"} {
		one, _ := os.ReadFile(in("one" + ext))
		merged, _ := os.ReadFile(in("m" + ext))
		if len(one) == 0 || !bytes.Equal(one, merged) {
			t.Errorf("merged %s differs from one run's (%d and %d bytes)", ext, len(merged), len(one))
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", "-json", in("x.json"), in("s0.json"), in("other.json"), in("s2.json")}, "s0.json and " + in("other.json") + " differ in config.quce"},
		{[]string{"merge", "-json", in("x.json"), in("s0.json"), in("s2.json")}, "shard 1/3 is missing"},
		{[]string{"merge", "-json", in("x.json"), in("s0.json"), in("s0.json"), in("s2.json")}, "are both shard 0/3"},
		{[]string{"merge", "-json", in("m.json"), in("s0.json"), in("s1.json"), in("s2.json")}, "already exists"},
		{[]string{"merge", "-json", in("x.json"), in("one.json")}, "records no -shard"},
		{[]string{"explain", "-n", "7", "-shard", "3/3"}, "0 ≤ i < N"},
		{[]string{"explain", "-n", "2", "-shard", "0/3", "-cache", pipelinetest.CacheDir(), "-q"}, "the selection has 2 rows, fewer than 3 shards"},
	} {
		err := quce(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(in("x.json")); err == nil {
		t.Error("a refused merge wrote its output")
	}
}
