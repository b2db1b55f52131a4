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

// -counterfactuals 2 gives every output the second counterfactual: the text's line, the
// JSON's counterfactuals, the CSV's lines of option 2 and a picture of its attribution; a
// count outside 1 to 10 is an error naming the flag.
func TestCounterfactualsFlag(t *testing.T) {
	dir := t.TempDir()
	jsonPath, csvPath, svg := filepath.Join(dir, "e.json"), filepath.Join(dir, "e.csv"), filepath.Join(dir, "svg")
	var stdout, stderr bytes.Buffer
	// The tests' 50 steps (quceRun) reach no valid counterfactual on this row: 300 do.
	err := run(context.Background(), []string{"explain", "-n", "1", "-counterfactuals", "2", "-steps", "300", "-q", "-top", "0",
		"-json", jsonPath, "-csv", csvPath, "-svg", svg, "-cache", pipelinetest.CacheDir()}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "counterfactual 2 of 2, holding ") {
		t.Errorf("the text has no line of the second counterfactual:\n%s", stdout.String())
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
	if len(doc.Results) != 1 || len(doc.Results[0].Counterfactuals) != 1 || doc.Results[0].Counterfactuals[0].Option != 2 ||
		len(doc.Results[0].Counterfactuals[0].Held) != 1 || !doc.Results[0].Counterfactuals[0].Valid {
		t.Errorf("the JSON's counterfactuals: %+v; want one, option 2, valid, holding one column", doc.Results)
	}
	table, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(table)), "\n")
	if !strings.HasSuffix(lines[0], ",option") || !strings.HasSuffix(lines[1], ",1") || !strings.HasSuffix(lines[len(lines)-1], ",2") || len(lines) != 1+2*30 {
		t.Errorf("the CSV has %d lines, want a header and 30 lines of each option, numbered 1 then 2", len(lines))
	}
	pics, _ := filepath.Glob(filepath.Join(svg, "*option2-attribution.svg"))
	if len(pics) != 1 {
		t.Errorf("pictures of the second counterfactual: %v", pics)
	}
	if _, _, err := quceRun("explain", "-counterfactuals", "11", "-q"); err == nil || !strings.Contains(err.Error(), "-counterfactuals") {
		t.Errorf("-counterfactuals 11: %v; want an error naming the flag", err)
	}
}
