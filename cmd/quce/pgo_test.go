package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pprofTop is go tool pprof -top of the profile at path: every function with its
// cumulative share of the samples, in percent.
func pprofTop(t *testing.T, path string) map[string]float64 {
	t.Helper()
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=1000000", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top %s: %v\n%s", path, err, out)
	}
	// flat flat% sum% cum cum% name
	line := regexp.MustCompile(`^\s*\S+\s+\S+%\s+\S+%\s+\S+\s+([0-9.]+)%\s+(.+)$`)
	cum := map[string]float64{}
	for _, l := range strings.Split(string(out), "\n") {
		if m := line.FindStringSubmatch(l); m != nil {
			cum[m[2]], _ = strconv.ParseFloat(m[1], 64)
		}
	}
	return cum
}

// The command is built with cmd/quce/default.pgo (profile-guided optimisation, see
// scripts/pgo-profile.sh). The profile must parse and hold what the command spends its time
// on, each with a real share of the samples: the search engines, training, and the pure-Go
// backend's executor. A function it names that no longer exists (an engine renamed, say)
// fails here, so that the profile is made again rather than left to go stale.
func TestDefaultProfileCoversTheCommand(t *testing.T) {
	cum := pprofTop(t, "default.pgo")
	for _, fn := range []string{
		"github.com/quce-go/quce/quce.stepsEngine.walk",
		"github.com/quce-go/quce/quce.loopEngine.walk",
		"github.com/quce-go/quce/quce.replayEngine.walk",
		"github.com/quce-go/quce/internal/trainloop.Run",
		"github.com/quce-go/quce/third_party/gobackend/internal/gobackend.(*FunctionExecutable).executeNode",
	} {
		if cum[fn] < 2 {
			t.Errorf("default.pgo: %s has %.2f%% of the samples, want at least 2%%; fix: bash scripts/pgo-profile.sh", fn, cum[fn])
		}
	}
}

// quce bench -cpuprofile writes a CPU profile that go tool pprof reads, says in its JSON
// which profile the binary was built with, and treats the file as every other output: an
// existing one is kept without -force, and standard output (which carries the JSON) is
// refused.
func TestBenchCPUProfile(t *testing.T) {
	bench := func(extra ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		args := append([]string{"bench", "-rows", "1", "-steps", "3", "-epochs", "1", "-vae-epochs", "1", "-latent", "2", "-q"}, extra...)
		err := run(context.Background(), args, &stdout, &stderr)
		return stdout.String(), err
	}
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	out, err := bench("-cpuprofile", prof)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(prof); err != nil {
		t.Fatalf("-cpuprofile %s: %v", prof, err)
	}
	pprofTop(t, prof)
	var doc struct {
		PGO string `json:"pgo"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.PGO != buildProfile() || doc.PGO == "" {
		t.Errorf(`"pgo" is %q, want the build's profile %q`, doc.PGO, buildProfile())
	}

	before, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{prof, "already exists"},
		{"-", "standard output carries the JSON"},
	} {
		if _, err := bench("-cpuprofile", tc.path); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("-cpuprofile %s: error %v, want one saying %q with the fix", tc.path, err, tc.want)
		}
	}
	if after, err := os.ReadFile(prof); err != nil || !bytes.Equal(before, after) {
		t.Errorf("the existing profile was changed or removed (%v)", err)
	}
}
