package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/quce-go/quce/report"
)

// shard is -shard i/N: the i-th (from 0) of N contiguous blocks of the selected rows, in
// their order. Block i holds the rows [i·R/N, (i+1)·R/N) of R, so the blocks are disjoint,
// cover the selection, differ in size by at most one row, and shard 0's results followed by
// shard 1's … are one run's.
type shard struct{ i, n int }

func parseShard(s string) (shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return shard{}, fmt.Errorf("-shard %q: fix: give the shard as i/N with 0 ≤ i < N, e.g. -shard 0/4 ($SLURM_ARRAY_TASK_ID/4 with --array=0-3)", s)
	}
	return shard{i, n}, nil
}

func (s shard) String() string { return fmt.Sprintf("%d/%d", s.i, s.n) }

// of returns the shard's block of picks.
func (s shard) of(picks []pick) ([]pick, error) {
	if s.n > len(picks) {
		return nil, fmt.Errorf("-shard %s: the selection has %d rows, fewer than %d shards, and a shard must not be empty; fix: use at most %d shards", s, len(picks), s.n, len(picks))
	}
	return picks[s.i*len(picks)/s.n : (s.i+1)*len(picks)/s.n], nil
}

func runMerge(_ context.Context, args []string, stdout, stderr io.Writer) error {
	c := &common{stderr: stderr}
	fs := flag.NewFlagSet("quce merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.String("json", "", "merge explain -json files of one run's shards (any order) into this file (- for standard output)")
	csvOut := fs.String("csv", "", "merge explain -csv files of one run's shards, given in shard order 0, 1, …, into this file (- for standard output)")
	fs.BoolVar(&c.force, "force", false, "overwrite the output file if it exists")
	if err := fs.Parse(args); err != nil {
		return err
	}
	out, merge := *jsonOut, mergeJSON
	switch {
	case (*jsonOut == "") == (*csvOut == ""):
		return fmt.Errorf("quce merge needs one of -json OUT or -csv OUT; fix: quce merge -json all.json shard0.json shard1.json …")
	case *csvOut != "":
		out, merge = *csvOut, mergeCSV
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("merge: no shard files; fix: list the shards' files after the flags")
	}
	if err := c.checkOutput(map[bool]string{true: "-json", false: "-csv"}[*jsonOut != ""], out); err != nil {
		return err
	}
	files := make(map[string][]byte, fs.NArg())
	for _, p := range fs.Args() {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		files[p] = b
	}
	b, err := merge(fs.Args(), files)
	if err != nil {
		return err
	}
	return writeOutputs(stdout, []output{{out, b}})
}

// mergeJSON joins the JSON of every shard of one run into the JSON one run would have
// written: the results in shard order, everything else as each shard has it, which must
// agree (else the shards come from different runs, and the error names the first field that
// differs).
func mergeJSON(names []string, files map[string][]byte) ([]byte, error) {
	type shardDoc struct {
		name    string
		fields  map[string]json.RawMessage
		config  map[string]json.RawMessage
		results []json.RawMessage
	}
	var docs []*shardDoc
	var n int
	for _, name := range names {
		d := &shardDoc{name: name}
		if err := json.Unmarshal(files[name], &d.fields); err != nil {
			return nil, fmt.Errorf("merge: %s is not quce explain's JSON: %v", name, err)
		}
		if err := json.Unmarshal(d.fields["config"], &d.config); err != nil || d.fields["results"] == nil {
			return nil, fmt.Errorf("merge: %s is not quce explain's JSON (no config or results); fix: merge the files explain -json -shard wrote", name)
		}
		var sh string
		if err := json.Unmarshal(d.config["shard"], &sh); err != nil {
			return nil, fmt.Errorf("merge: %s records no -shard; fix: merge the files explain -json -shard i/N wrote", name)
		}
		s, err := parseShard(sh)
		if err != nil {
			return nil, fmt.Errorf("merge: %s: %w", name, err)
		}
		if err := json.Unmarshal(d.fields["results"], &d.results); err != nil {
			return nil, fmt.Errorf("merge: %s: results: %v", name, err)
		}
		if n == 0 {
			n = s.n
			docs = make([]*shardDoc, n)
		}
		if s.n != n {
			other := docs[slices.IndexFunc(docs, func(d *shardDoc) bool { return d != nil })]
			return nil, fmt.Errorf("merge: %s is shard %s, %s one of %d shards; fix: merge the shards of one run", name, s, other.name, n)
		}
		if docs[s.i] != nil {
			return nil, fmt.Errorf("merge: %s and %s are both shard %s; fix: give each shard once", docs[s.i].name, name, s)
		}
		delete(d.config, "shard")
		docs[s.i] = d
	}
	var all []json.RawMessage
	for i, d := range docs {
		if d == nil {
			return nil, fmt.Errorf("merge: shard %d/%d is missing; fix: add its file (every shard 0 … %d of the run)", i, n, n-1)
		}
		first := docs[0]
		if path, ok := firstDifference(first.fields, d.fields, first.config, d.config); !ok {
			return nil, fmt.Errorf("merge: %s and %s differ in %s: they come from runs with different settings, data or models; fix: merge shards of one run (the same command but -shard)", first.name, d.name, path)
		}
		all = append(all, d.results...)
	}
	merged := docs[0].fields
	cfg, err := json.Marshal(docs[0].config)
	if err != nil {
		return nil, err
	}
	res, err := json.Marshal(all)
	if err != nil {
		return nil, err
	}
	merged["config"], merged["results"] = cfg, res
	return report.JSON(merged)
}

// firstDifference names the first field but results in which two shards' JSON differ
// (config's fields named as config.NAME), or reports that they agree.
func firstDifference(a, b, aConfig, bConfig map[string]json.RawMessage) (string, bool) {
	if p, ok := sameFields(a, b, "", map[string]bool{"results": true, "config": true}); !ok {
		return p, false
	}
	return sameFields(aConfig, bConfig, "config.", nil)
}

func sameFields(a, b map[string]json.RawMessage, prefix string, skip map[string]bool) (string, bool) {
	for _, m := range []map[string]json.RawMessage{a, b} {
		for k := range m {
			if skip[k] {
				continue
			}
			va, vb := a[k], b[k]
			if !bytes.Equal(compact(va), compact(vb)) {
				return prefix + k, false
			}
		}
	}
	return "", true
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// mergeCSV joins the CSV of every shard of one run, given in shard order, into the CSV one
// run would have written: the header once, then each shard's rows. The CSV records no
// settings, so only the headers can be checked; the JSON is the checked way.
func mergeCSV(names []string, files map[string][]byte) ([]byte, error) {
	var out bytes.Buffer
	var header string
	for i, name := range names {
		h, rows, _ := strings.Cut(string(files[name]), "\n")
		if i == 0 {
			header = h
			out.WriteString(h + "\n")
		} else if h != header {
			return nil, fmt.Errorf("merge: %s has the header %q, %s %q; fix: merge the -csv files of one run's shards", name, h, names[0], header)
		}
		out.WriteString(rows)
	}
	return out.Bytes(), nil
}
