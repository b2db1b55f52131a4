package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/modeltest"
)

// With -csv alone the rows are explained chunk by chunk and the table streamed into its
// staged file: the file and the text report are byte for byte those of a run that holds
// every result (here made by asking for -json too).
func TestExplainStreamsCSV(t *testing.T) {
	modeltest.NeedRowsIndependent(t)
	defer func(c int) { streamChunk = c }(streamChunk)
	streamChunk = 3
	dir := t.TempDir()
	held, js, streamed := filepath.Join(dir, "held.csv"), filepath.Join(dir, "held.json"), filepath.Join(dir, "streamed.csv")
	args := []string{"explain", "-n", "7", "-paths", "2", "-top", "3"}
	heldOut, _, err := quceRun(append(args, "-csv", held, "-json", js)...)
	if err != nil {
		t.Fatal(err)
	}
	streamedOut, stderr, err := quceRun(append(args, "-csv", streamed)...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(held)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(streamed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the streamed CSV differs from the held one:\n%s\nwant:\n%s", got, want)
	}
	if streamedOut != heldOut {
		t.Errorf("the streamed text report differs:\n%s\nwant:\n%s", streamedOut, heldOut)
	}
	if !strings.Contains(stderr, "wrote "+streamed) {
		t.Errorf("stderr does not say the file was written:\n%s", stderr)
	}
}

// A streamed run in which every row fails writes nothing, and leaves no staged file: the
// file it would have replaced is as it was.
func TestExplainStreamedAllFailedWritesNothing(t *testing.T) {
	defer func(c int) { streamChunk = c }(streamChunk)
	streamChunk = 1
	var open []string
	for _, f := range data.WBC().Features {
		open = append(open, f+"=:")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "e.csv")
	if err := os.WriteFile(out, []byte("the user's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := quceRun("explain", "-n", "2", "-lr", "1e9", "-bounds", strings.Join(open, ","), "-csv", out, "-force")
	if err == nil || !strings.Contains(err.Error(), "every one of the 2 explanations failed") || !strings.Contains(err.Error(), "no output files were written") {
		t.Fatalf("explain: %v; want every row failed and nothing written", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries; want only the user's file", len(entries))
	}
	if b, _ := os.ReadFile(out); string(b) != "the user's file" {
		t.Errorf("the user's file holds %q", b)
	}
}

// A streamed run needs the memory of one chunk without paths: under a memory limit that
// refuses the same rows held with their paths (-json), -csv alone runs.
func TestExplainStreamedFitsWhereHeldDoesNot(t *testing.T) {
	defer func(c int) { streamChunk = c }(streamChunk)
	streamChunk = 3
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(380 << 20))
	dir := t.TempDir()
	args := []string{"explain", "-n", "7", "-paths", "600", "-top", "0", "-csv", filepath.Join(dir, "e.csv")}
	if _, _, err := quceRun(append(args, "-json", filepath.Join(dir, "e.json"))...); err == nil || !strings.Contains(err.Error(), "needs about") {
		t.Fatalf("held: %v; want it refused for memory", err)
	}
	if _, _, err := quceRun(args...); err != nil {
		t.Fatalf("streamed: %v", err)
	}
}

// A rowWriter writes what one format of all the rows writes, whatever the rows and however
// many parts they are formatted in, reused from one call to the next; a part's error is
// returned and nothing is written.
func TestRowWriterKeepsOrder(t *testing.T) {
	format := func(w io.Writer, lo, hi int) error {
		for i := lo; i < hi; i++ {
			fmt.Fprintf(w, "row %d\n", i)
		}
		return nil
	}
	var rw rowWriter
	for _, n := range []int{7, 0, 1, 2, 100, 3} {
		var want, got bytes.Buffer
		format(&want, 0, n)
		if err := rw.write(&got, n, format); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d rows: wrote\n%s\nwant\n%s", n, got.String(), want.String())
		}
	}
	var got bytes.Buffer
	bad := errors.New("row 5 cannot be formatted")
	err := rw.write(&got, 10, func(w io.Writer, lo, hi int) error {
		if lo <= 5 && 5 < hi {
			return bad
		}
		return format(w, lo, hi)
	})
	if !errors.Is(err, bad) || got.Len() != 0 {
		t.Errorf("a part's error: %v, %d bytes written; want the error and nothing written", err, got.Len())
	}
}
