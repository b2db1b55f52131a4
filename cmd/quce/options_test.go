package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// -counterfactuals 3 gives every output the further counterfactuals: the text's lines, the
// JSON's counterfactuals, the CSV's lines of options 2 and 3, a picture of each one's
// attribution and path, and their paths on the map; a count outside 1 to 10 is an error
// naming the flag.
func TestCounterfactualsFlag(t *testing.T) {
	dir := t.TempDir()
	jsonPath, csvPath, svg := filepath.Join(dir, "e.json"), filepath.Join(dir, "e.csv"), filepath.Join(dir, "svg")
	var stdout, stderr bytes.Buffer
	// The tests' 50 steps (quceRun) reach no valid counterfactual on this row: 300 do.
	err := run(context.Background(), []string{"explain", "-n", "1", "-counterfactuals", "3", "-steps", "300", "-q", "-top", "0",
		"-json", jsonPath, "-csv", csvPath, "-svg", svg, "-cache", pipelinetest.CacheDir()}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, line := range []string{"counterfactual 2 of 3, holding ", "counterfactual 3 of 3, holding "} {
		if !strings.Contains(stdout.String(), line) {
			t.Errorf("the text has no line %q:\n%s", line, stdout.String())
		}
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct {
			Counterfactuals []struct {
				Option int      `json:"option"`
				Held   []string `json:"held"`
				Valid  bool     `json:"valid"`
			} `json:"counterfactuals"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 1 || len(doc.Results[0].Counterfactuals) != 2 {
		t.Fatalf("the JSON's results: %+v; want one with two further counterfactuals", doc.Results)
	}
	for i, o := range doc.Results[0].Counterfactuals {
		if o.Option != i+2 || len(o.Held) != i+1 || !o.Valid {
			t.Errorf("the JSON's counterfactual %d: %+v; want option %d, valid, holding %d columns", i, o, i+2, i+1)
		}
	}
	table, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(table)), "\n")
	if !strings.HasSuffix(lines[0], ",option") || !strings.HasSuffix(lines[1], ",1") || !strings.HasSuffix(lines[len(lines)-1], ",3") || len(lines) != 1+3*30 {
		t.Errorf("the CSV has %d lines, want a header and 30 lines of each option, numbered 1 to 3", len(lines))
	}
	for _, pic := range []string{"option2-attribution", "option2-path", "option3-attribution", "option3-path"} {
		if got, _ := filepath.Glob(filepath.Join(svg, "*-"+pic+".svg")); len(got) != 1 {
			t.Errorf("pictures %s: %v; want one", pic, got)
		}
	}
	maps, _ := filepath.Glob(filepath.Join(svg, "*-map.svg"))
	if len(maps) != 1 {
		t.Fatalf("maps: %v; want one", maps)
	}
	m, err := os.ReadFile(maps[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range []string{">option 2: holds ", ">option 3: holds "} {
		if !bytes.Contains(m, []byte(entry)) {
			t.Errorf("the map has no legend entry %q", entry)
		}
	}
	if _, _, err := quceRun("explain", "-counterfactuals", "11", "-q"); err == nil || !strings.Contains(err.Error(), "-counterfactuals") {
		t.Errorf("-counterfactuals 11: %v; want an error naming the flag", err)
	}
}
