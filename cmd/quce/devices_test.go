package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// On a backend of two devices (two virtual devices of the pure-Go backend, GOMLX_BACKEND,
// which is read once per process: hence a process each) quce explain writes what it writes
// on one: the CSV byte for byte, the JSON but for the backend it names and its models' cache
// key (the cache keeps models per backend configuration; they train to the same weights).
// quce bench says the rows ran on both devices.
func TestExplainOnTwoDevices(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	cache, _ := filepath.Abs(pipelinetest.CacheDir())
	quce := func(config string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append(args, "-cache", cache)...)
		cmd.Env = append(os.Environ(), backend.EnvVar+"="+config)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s=%s quce %s: %v\n%s", backend.EnvVar, config, strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String() + stderr.String()
	}
	type run struct {
		json map[string]any
		csv  []byte
	}
	explain := func(name, config, devices string) run {
		js, csv := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".csv")
		out := quce(config, "explain", "-n", "64", "-steps", "100", "-json", js, "-csv", csv)
		if n := backendDevices(out); n != devices {
			t.Errorf("%s: the backend line names %q devices, want %q:\n%s", config, n, devices, out)
		}
		var r run
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r.json); err != nil {
			t.Fatal(err)
		}
		if r.csv, err = os.ReadFile(csv); err != nil {
			t.Fatal(err)
		}
		if got := r.json["backend"]; got != config {
			t.Errorf("the JSON names backend %v, want %s", got, config)
		}
		delete(r.json, "backend")
		delete(r.json["models"].(map[string]any), "cache_key")
		return r
	}
	one, two := explain("one", "gopatched", ""), explain("two", "gopatched:devices=2", "2")
	if !bytes.Equal(one.csv, two.csv) {
		t.Error("the CSV on two devices differs from the CSV on one")
	}
	if !reflect.DeepEqual(one.json, two.json) {
		for k := range one.json {
			if !reflect.DeepEqual(one.json[k], two.json[k]) {
				t.Errorf("the JSON's %q on two devices differs from one device's", k)
			}
		}
	}

	var bench struct {
		Devices int `json:"devices"`
		Phases  []struct {
			Name    string `json:"name"`
			Rows    int    `json:"rows"`
			Devices int    `json:"devices"`
		} `json:"phases"`
	}
	out := quce("gopatched:devices=2", "bench", "-rows", "64", "-steps", "5", "-epochs", "3", "-vae-epochs", "2", "-latent", "2", "-q")
	if err := json.Unmarshal([]byte(out), &bench); err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	ran := false
	for _, p := range bench.Phases {
		if p.Name == "explain" {
			ran = true
			if p.Devices != 2 {
				t.Errorf("bench B=%d: executions on %d devices, want 2", p.Rows, p.Devices)
			}
		}
	}
	if bench.Devices != 2 || !ran {
		t.Errorf("bench: %d devices, explain phase run %v; want 2 devices and an explain phase\n%s", bench.Devices, ran, out)
	}
}

// backendDevices is the number of devices the "backend:" line of quce's log names ("" if it
// names none: one device).
func backendDevices(log string) string {
	for _, line := range strings.Split(log, "\n") {
		if rest, ok := strings.CutPrefix(line, "backend: "); ok {
			for _, part := range strings.Split(rest, "; ") {
				if n, ok := strings.CutSuffix(part, " devices"); ok {
					return n
				}
			}
		}
	}
	return ""
}
